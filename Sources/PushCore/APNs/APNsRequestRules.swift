/// One check APNs applies to a provider request, mapped to exactly the reason it answers
/// with (docs/specs/apns.md "Request" and "Response"). The raw value is the check's name, so
/// the list reads line by line against Apple's table. The validator's rules for APNs-enforced
/// facts, the sender's pre-flight and the gateway emulator all decide through `isViolated`.
public enum APNsRequestRule: String, Sendable, Hashable, CaseIterable {
    case methodIsPOST = "method is POST"
    case deviceTokenPresent = "device token present"
    case deviceTokenIsHex = "device token is hex"
    case noDuplicateHeaders = "no duplicate headers"
    case apnsIDIsCanonicalUUID = "apns-id is a canonical UUID"
    case expirationIsUNIXSeconds = "apns-expiration is UNIX seconds"
    case priorityIsKnown = "apns-priority is 10, 5 or 1"
    case pushTypeIsKnown = "apns-push-type is known"
    case topicPresent = "apns-topic present"
    case topicIsBundleID = "apns-topic is a bundle id"
    case collapseIDAtMost64Bytes = "apns-collapse-id at most 64 bytes"
    case topicFitsPushType = "apns-topic carries the push type's suffix"
    case payloadNotEmpty = "payload not empty"
    case payloadWithinLimit = "payload within the push type's limit"

    /// The reason APNs answers when the request breaks this rule.
    public var reason: APNsReason {
        switch self {
        case .methodIsPOST: return .methodNotAllowed
        case .deviceTokenPresent: return .missingDeviceToken
        case .deviceTokenIsHex: return .badDeviceToken
        case .noDuplicateHeaders: return .duplicateHeaders
        case .apnsIDIsCanonicalUUID: return .badMessageId
        case .expirationIsUNIXSeconds: return .badExpirationDate
        case .priorityIsKnown: return .badPriority
        case .pushTypeIsKnown: return .invalidPushType
        case .topicPresent: return .missingTopic
        case .topicIsBundleID: return .badTopic
        case .collapseIDAtMost64Bytes: return .badCollapseId
        case .topicFitsPushType: return .deviceTokenNotForTopic
        case .payloadNotEmpty: return .payloadEmpty
        case .payloadWithinLimit: return .payloadTooLarge
        }
    }

    /// True when `request` breaks this rule. Each rule looks at its own header only (a
    /// missing header breaks none but the rules that require it), so they can run in any
    /// order and each finding names one cause.
    public func isViolated(by request: APNsRequest) -> Bool {
        switch self {
        case .methodIsPOST: return request.method != "POST"
        case .deviceTokenPresent: return request.deviceToken.isEmpty
        case .deviceTokenIsHex: return !request.deviceToken.isEmpty && DeviceToken.classify(request.deviceToken) != .apns
        case .noDuplicateHeaders: return request.hasDuplicateHeader
        case .apnsIDIsCanonicalUUID: return request.apnsID.map { !APNsID.isCanonical($0) } ?? false
        case .expirationIsUNIXSeconds: return request.expiration.map { !APNsRequestRules.isUNIXSeconds($0) } ?? false
        case .priorityIsKnown: return request.priority.map { APNsPriority(header: $0) == nil } ?? false
        case .pushTypeIsKnown: return request.pushType.map { APNsPushType(rawValue: $0) == nil } ?? false
        case .topicPresent: return request.topic?.isEmpty ?? true
        case .topicIsBundleID: return request.topic.map { !APNsRequestRules.isBundleID($0) } ?? false
        case .collapseIDAtMost64Bytes: return request.collapseID.map { $0.utf8.count > APNsRequestRules.maximumCollapseIDBytes } ?? false
        case .topicFitsPushType:
            guard let topic = request.topic, let type = request.knownPushType else { return false }
            return !type.fits(topic: topic)
        case .payloadNotEmpty: return request.body.isEmpty
        case .payloadWithinLimit:
            return APNsRequestRules.isTooLarge(byteCount: request.body.count, pushType: request.effectivePushType)
        }
    }
}

/// The order the gateway emulator runs `APNsRequestRule`s in, and the facts they share.
public enum APNsRequestRules {
    /// The checks that need nothing but the request, in the order APNs is observed to apply
    /// them. Authorization and the device registry come after these; then `topicChecks` and
    /// `payloadChecks`.
    public static let headerChecks: [APNsRequestRule] = [
        .methodIsPOST, .deviceTokenPresent, .deviceTokenIsHex, .noDuplicateHeaders, .apnsIDIsCanonicalUUID,
        .expirationIsUNIXSeconds, .priorityIsKnown, .pushTypeIsKnown, .topicPresent, .topicIsBundleID,
        .collapseIDAtMost64Bytes,
    ]
    /// After the topic is known to be allowed for the team.
    public static let topicChecks: [APNsRequestRule] = [.topicFitsPushType]
    /// After the device token was found for the topic.
    public static let payloadChecks: [APNsRequestRule] = [.payloadNotEmpty, .payloadWithinLimit]

    /// docs/specs/apns.md "Request": `apns-collapse-id` is at most 64 bytes.
    public static let maximumCollapseIDBytes = 64

    /// The first of `rules` that `request` breaks.
    public static func firstViolation(of rules: [APNsRequestRule], in request: APNsRequest) -> APNsRequestRule? {
        for rule in rules where rule.isViolated(by: request) { return rule }
        return nil
    }

    /// `apns-expiration`: whole UNIX seconds, ASCII digits only (no sign), fitting 64 bits.
    public static func isUNIXSeconds(_ value: String) -> Bool {
        !value.isEmpty && value.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 } && UInt64(value) != nil
    }

    /// `apns-topic`: letters, digits, '.', '-' (and '_', which some old bundle ids carry).
    public static func isBundleID(_ topic: String) -> Bool {
        topic.utf8.allSatisfy { c in
            (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c == 46 || c == 45 || c == 95
        }
    }

    /// A payload of `byteCount` bytes is over the limit for `pushType`.
    public static func isTooLarge(byteCount: Int, pushType: APNsPushType) -> Bool { byteCount > pushType.maximumPayloadBytes }
}

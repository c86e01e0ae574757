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
        case .apnsIDIsCanonicalUUID: return request.apnsID.map { $0.known == nil } ?? false
        case .expirationIsUNIXSeconds: return request.expiration.map { !APNsRequestRules.isUNIXSeconds($0) } ?? false
        case .priorityIsKnown: return request.priority.map { $0.known == nil } ?? false
        case .pushTypeIsKnown: return request.pushType.map { $0.known == nil } ?? false
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

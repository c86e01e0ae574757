import Foundation

/// Builds APNs payloads and FCM v1 messages from simple inputs (`pushlab payload`, the senders'
/// flag form). The result is validated with the full rule catalog before it is returned, so
/// what it builds always passes `pushlab validate`; problems are reported against the input.
public struct PayloadBuilder: Sendable {
    public var title: String?
    public var subtitle: String?
    public var body: String?
    /// `CIO.push.image` (and the FCM notification image).
    public var image: String?
    /// `CIO.push.link`.
    public var link: String?
    public var sound: String?
    public var badge: Int?
    public var category: String?
    public var threadID: String?
    public var interruptionLevel: String?
    public var relevanceScore: Double?
    /// Custom keys: top-level string keys in APNs, `message.data` in FCM. Order kept.
    public var data: [(key: String, value: String)] = []
    public var deliveryID: String?
    public var deliveryToken: String?
    public var pushType: APNsPushType = .alert
    /// Force `mutable-content: 1` even without an image or delivery keys.
    public var mutableContent = false

    public init() {}

    /// The APNs payload.
    public func apnsPayload() throws(PayloadBuildError) -> JSONValue {
        try checkInputs()
        var top = JSONObject()
        top["aps"] = .object(aps(includeAlert: true))
        appendCustomerIO(to: &top)
        for (k, v) in data { top[k] = .string(v) }
        let value = JSONValue.object(top)
        try verify(Validator(options: ValidationOptions(apns: APNsRequest(pushType: pushType.rawValue,
                                                                            priority: pushType.defaultPriority.header))).validate(value, as: .apns))
        return value
    }

    /// An FCM v1 send request (`{"message": …}`) for `target`.
    public func fcmRequest(target: FCMTarget, validateOnly: Bool? = nil) throws(PayloadBuildError) -> JSONValue {
        try checkInputs()
        if case .token(let t) = target, let problem = DeviceToken.problem(t, for: .fcm) {
            throw PayloadBuildError(flag: "--token", message: problem.message, fix: problem.fix)
        }
        if case .fid(let f) = target, let problem = FirebaseInstallationID.problem(f) {
            throw PayloadBuildError(flag: "--fid", message: problem.message, fix: problem.fix)
        }
        var message = FCMMessage(target: target)
        if pushType != .background, title != nil || body != nil || image != nil {
            message.notification = FCMMessage.Notification(title: title, body: body, image: image)
        }
        message.data = data
        var payload = JSONObject()
        var apsObject = aps(includeAlert: false)
        if let subtitle, pushType != .background { apsObject["alert"] = ["subtitle": .string(subtitle)] }
        if !apsObject.isEmpty { payload["aps"] = .object(apsObject) }
        appendCustomerIO(to: &payload)
        if !payload.isEmpty { message.apnsPayload = .object(payload) }
        if pushType != .alert {
            message.apnsHeaders = [(APNsHeader.pushType, pushType.rawValue), (APNsHeader.priority, pushType.defaultPriority.header)]
        }
        let value = FCMSendRequest(validateOnly: validateOnly, message: message).json
        try verify(Validator().validate(value, as: .fcm))
        return value
    }

    private func aps(includeAlert: Bool) -> JSONObject {
        var aps = JSONObject()
        if pushType == .background {
            aps["content-available"] = 1
            return aps
        }
        if includeAlert, title != nil || subtitle != nil || body != nil {
            var alert = JSONObject()
            if let title { alert["title"] = .string(title) }
            if let subtitle { alert["subtitle"] = .string(subtitle) }
            if let body { alert["body"] = .string(body) }
            aps["alert"] = .object(alert)
        }
        if let sound { aps["sound"] = .string(sound) }
        if let badge { aps["badge"] = .number(JSONNumber(badge)) }
        if let category { aps["category"] = .string(category) }
        if let threadID { aps["thread-id"] = .string(threadID) }
        if let interruptionLevel { aps["interruption-level"] = .string(interruptionLevel) }
        if let relevanceScore { aps["relevance-score"] = .number(JSONNumber(relevanceScore)) }
        // The NSE only runs with mutable-content 1: needed for the image and the delivered metric.
        if mutableContent || image != nil || deliveryID != nil { aps["mutable-content"] = 1 }
        return aps
    }

    private func appendCustomerIO(to top: inout JSONObject) {
        if let deliveryID, let deliveryToken {
            top.members += CIOPush(deliveryID: deliveryID, deliveryToken: deliveryToken, image: image, link: link).payloadMembers()
        } else if image != nil || link != nil {
            var push = JSONObject()
            if let link { push["link"] = .string(link) }
            if let image { push["image"] = .string(image) }
            top["CIO"] = ["push": .object(push)]
        }
    }

    private func checkInputs() throws(PayloadBuildError) {
        if (deliveryID == nil) != (deliveryToken == nil) {
            throw PayloadBuildError(flag: deliveryID == nil ? "--delivery-token" : "--delivery-id",
                                    message: "--delivery-id and --delivery-token go together",
                                    fix: "pass both (a Customer.io push) or neither", ruleID: RuleCatalog.cioDeliveryPair.id)
        }
        if pushType == .background {
            let shown = [("--title", title), ("--subtitle", subtitle), ("--body", body), ("--sound", sound), ("--image", image)]
                .filter { $0.1 != nil }.map(\.0) + (badge != nil ? ["--badge"] : [])
            if let first = shown.first {
                throw PayloadBuildError(flag: first, message: "a background push shows nothing; \(shown.joined(separator: ", ")) cannot be used with --push-type background",
                                        fix: "drop \(shown.joined(separator: ", ")) or use --push-type alert", ruleID: RuleCatalog.apnsBackgroundAlert.id)
            }
        } else if pushType != .alert {
            throw PayloadBuildError(flag: "--push-type", message: "the builder makes alert and background pushes, not \(pushType.rawValue)",
                                    fix: "write \(pushType.rawValue) payloads as a file and check them with pushlab validate")
        } else if title == nil && body == nil && subtitle == nil {
            throw PayloadBuildError(flag: "--title", message: "an alert push needs something to show",
                                    fix: "pass --title and/or --body (or --push-type background for a silent push)", ruleID: RuleCatalog.apsAlertEmpty.id)
        }
        if let badge, badge < 0 {
            throw PayloadBuildError(flag: "--badge", message: "badge must be 0 or more, got \(badge)", fix: "use 0 to clear the badge", ruleID: RuleCatalog.apsBadgeType.id)
        }
        for (key, _) in data where ["aps", "CIO", CIOPush.deliveryIDKey, CIOPush.deliveryTokenKey].contains(key) {
            throw PayloadBuildError(flag: "--data", message: "the key \(key) is set by other flags", fix: "use --title/--image/--delivery-id … instead")
        }
    }

    /// Every error (and warning) the validator finds becomes a build error naming its flag.
    private func verify(_ report: ValidationReport) throws(PayloadBuildError) {
        guard let finding = report.findings.first(where: { $0.severity != .info }) else { return }
        throw PayloadBuildError(flag: PayloadBuilder.flag(for: finding), message: finding.message, fix: finding.fix, ruleID: finding.ruleID)
    }

    static func flag(for finding: ValidationFinding) -> String? {
        guard let last = finding.pointer?.tokens.last else { return nil }
        let tokens = finding.pointer!.tokens
        switch last {
        case "image": return "--image"
        case "link": return "--link"
        case "title": return "--title"
        case "subtitle": return "--subtitle"
        case "body": return "--body"
        case "sound": return "--sound"
        case "badge": return "--badge"
        case "category": return "--category"
        case "thread-id": return "--thread-id"
        case "interruption-level": return "--interruption-level"
        case "relevance-score": return "--relevance-score"
        case "topic": return "--topic"
        case "condition": return "--condition"
        case "token": return "--token"
        case "fid": return "--fid"
        case CIOPush.deliveryIDKey: return "--delivery-id"
        case CIOPush.deliveryTokenKey: return "--delivery-token"
        default: return tokens.contains("data") || tokens.count == 1 ? "--data" : nil
        }
    }
}

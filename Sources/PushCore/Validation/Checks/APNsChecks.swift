import Foundation

/// APNs request checks: headers, device token, push-type consistency, size — then the payload
/// (`aps`, Live Activity, Customer.io). docs/specs/apns.md "Request" and "The aps dictionary".
enum APNsChecks {
    struct Result {
        var pushType: APNsPushType
        var byteCount: Int
        var byteLimit: Int
    }

    /// What FCM adds to the `aps` it builds from the rest of the message (FCM checks pass it).
    struct Implied {
        var alert = false
        var mutableContent = false
        var aps = false
    }

    static func request(_ root: JSONValue, context: APNsRequest, receivedByteCount: Int?,
                        into c: inout FindingCollector) -> Result {
        let explicit = headers(context, into: &c)
        deviceToken(context, into: &c)
        let pushType = explicit ?? APNsPushType.inferred(from: root)
        if let explicit, let required = explicit.requiredPriority {
            let priority = context.priority?.known ?? .immediate
            if priority != required {
                c.report(RuleCatalog.apnsBackgroundPriority, nil,
                         context.priority.map { "a background push is sent with apns-priority \($0)" }
                            ?? "a background push without apns-priority is sent at priority \(APNsPriority.immediate)",
                         header: "apns-priority")
            }
        }
        payload(root, base: .root, pushType: pushType, explicitPushType: explicit != nil, implied: Implied(), into: &c)
        let size = receivedByteCount ?? APNsRequestRules.bodySizeAsSent(root)
        if APNsRequestRules.isTooLarge(byteCount: size, pushType: pushType) {
            c.report(RuleCatalog.apnsSizeMax, .root,
                     "the payload is \(size) bytes\(receivedByteCount == nil ? " " + APNsRequestRules.bodyFormAsSent + " (as pushlab sends it)" : ""), over the \(pushType.maximumPayloadBytes)-byte limit for \(pushType.rawValue) pushes by \(size - pushType.maximumPayloadBytes)")
        }
        return Result(pushType: pushType, byteCount: size, byteLimit: pushType.maximumPayloadBytes)
    }

    /// The push types, for the "did you mean" of an unknown one.
    static let pushTypeNames = KnownNames(APNsPushType.allCases.map(\.rawValue))

    /// Header rules; returns the push type the header names, if valid. `base` is set when the
    /// headers live in a document (FCM `apns.headers`), so findings point into it.
    @discardableResult
    static func headers(_ h: APNsRequest, base: JSONPointer? = nil, into c: inout FindingCollector) -> APNsPushType? {
        func place(_ name: String) -> (JSONPointer?, String?) { base.map { ($0 / name, nil) } ?? (nil, name) }
        let pushType = h.knownPushType
        if let raw = h.pushType?.header {
            if APNsRequestRule.pushTypeIsKnown.isViolated(by: h) {
                let (p, hd) = place(APNsHeader.pushType)
                let hint = pushTypeNames.closest(to: raw).map { " (did you mean \($0)?)" } ?? ""
                c.report(RuleCatalog.apnsPushTypeUnknown, p, "apns-push-type \"\(raw)\" is not a push type APNs knows\(hint)", header: hd)
            }
        }
        if let raw = h.priority?.header, APNsRequestRule.priorityIsKnown.isViolated(by: h) {
            let (p, hd) = place(APNsHeader.priority)
            c.report(RuleCatalog.apnsPriorityValue, p, "apns-priority is \"\(raw)\"", header: hd)
        }
        if let topic = h.topic, let type = pushType, APNsRequestRule.topicFitsPushType.isViolated(by: h) {
            let suffix = type.topicSuffix
            let (p, hd) = place(APNsHeader.topic)
            if suffix.isEmpty {
                if let wrong = APNsPushType.suffix(of: topic) {
                    c.report(RuleCatalog.apnsTopicSuffix, p, "apns-topic \"\(topic)\" ends in \(wrong), but the push type is \(type.rawValue)",
                             fix: "use the bare bundle id \"\(topic.dropLast(wrong.count))\" for \(type.rawValue) pushes", header: hd)
                }
            } else {
                let bare = APNsPushType.suffix(of: topic).map { String(topic.dropLast($0.count)) } ?? topic
                c.report(RuleCatalog.apnsTopicSuffix, p, "apns-topic \"\(topic)\" lacks the \(suffix) suffix that \(type.rawValue) pushes need",
                         fix: "use \"\(bare)\(suffix)\"", header: hd)
            }
        }
        if let id = h.collapseID, APNsRequestRule.collapseIDAtMost64Bytes.isViolated(by: h) {
            let (p, hd) = place(APNsHeader.collapseID)
            c.report(RuleCatalog.apnsCollapseIDSize, p, "apns-collapse-id is \(id.utf8.count) bytes", header: hd)
        }
        if let exp = h.expiration, APNsRequestRule.expirationIsUNIXSeconds.isViolated(by: h) {
            let (p, hd) = place(APNsHeader.expiration)
            c.report(RuleCatalog.apnsExpirationValue, p, "apns-expiration is \"\(exp)\", not whole UNIX seconds", header: hd)
        }
        if let id = h.apnsID?.header, APNsRequestRule.apnsIDIsCanonicalUUID.isViolated(by: h) {
            let (p, hd) = place(APNsHeader.id)
            c.report(RuleCatalog.apnsIDFormat, p, "apns-id \"\(id)\" is not a canonical UUID", header: hd)
        }
        return pushType
    }

    static func deviceToken(_ request: APNsRequest, into c: inout FindingCollector) {
        guard APNsRequestRule.deviceTokenIsHex.isViolated(by: request),
              let problem = DeviceToken.problem(request.deviceToken, for: .apns) else { return }
        let rule = problem.code == .fcmTokenSentToAPNs ? RuleCatalog.apnsTokenFCM : RuleCatalog.apnsTokenShape
        c.report(rule, nil, problem.message, fix: problem.fix, header: "device token")
    }

    /// The payload: root object, `aps`, push-type consistency, Live Activity, Customer.io.
    static func payload(_ root: JSONValue, base: JSONPointer, pushType: APNsPushType, explicitPushType: Bool,
                        implied: Implied, into c: inout FindingCollector) {
        guard let top = root.objectValue else {
            c.report(RuleCatalog.jsonRootObject, base, "the payload is \(root.describedForMessage), not an object")
            return
        }
        let apsPointer = base / "aps"
        var aps: JSONObject?
        switch top["aps"] {
        case nil:
            if pushType != .mdm && !implied.aps {
                c.report(RuleCatalog.apsMissing, base, "there is no \"aps\" dictionary")
            }
        case .object(let o)?:
            aps = o
            APSChecks.aps(o, at: apsPointer, into: &c)
        case let v?:
            c.report(RuleCatalog.apsType, apsPointer, "aps is \(v.describedForMessage)")
        }
        if let aps { consistency(aps, at: apsPointer, pushType: pushType, explicit: explicitPushType, into: &c) }
        if pushType == .liveactivity, let aps { LiveActivityChecks.aps(aps, at: apsPointer, into: &c) }
        CIOChecks.payload(top, base: base, aps: aps, implied: implied, into: &c)
    }

    static func consistency(_ aps: JSONObject, at p: JSONPointer, pushType: APNsPushType, explicit: Bool, into c: inout FindingCollector) {
        let showing = ["alert", "badge", "sound"].filter { aps[$0] != nil }
        if pushType == .background {
            if !showing.isEmpty {
                c.report(RuleCatalog.apnsBackgroundAlert, p / showing[0], "a background push contains \(showing.joined(separator: ", "))")
            }
            if !APS.isOne(aps["content-available"]) {
                c.report(RuleCatalog.apnsBackgroundContentAvailable, p, "the background push has no \"content-available\": 1")
            }
        }
        if explicit && pushType == .alert && showing.isEmpty && APS.isOne(aps["content-available"]) {
            c.report(RuleCatalog.apnsPushTypeMismatch, p,
                     "apns-push-type is alert but the payload only has content-available (a background push)",
                     fix: "send it with apns-push-type: background and apns-priority: 5")
        }
        if explicit && pushType != .liveactivity, let key = ["event", "content-state"].first(where: { aps[$0] != nil }) {
            c.report(RuleCatalog.liveActivityPushType, p / key, "aps.\(key) is a Live Activity key, but apns-push-type is \(pushType.rawValue)")
        }
    }
}

import Foundation

/// FCM HTTP v1 request rules (docs/specs/fcm.md "Message essentials"). The APNs section's payload goes
/// through the APNs payload checks, because FCM hands it to APNs for iOS.
enum FCMChecks {
    struct Result {
        var byteCount: Int?
        var byteLimit: Int?
        var pushType: APNsPushType?
    }

    /// The fields each object may have; an unknown one gets a "did you mean" from its table.
    static let requestKeys: KnownNames = ["message", "validate_only"]
    static let messageKeys = KnownNames(["name", "data", "notification", "android", "webpush", "apns", "fcm_options"] + FCMTarget.fieldNames)
    static let notificationKeys: KnownNames = ["title", "body", "image"]
    static let apnsKeys: KnownNames = ["headers", "payload", "fcm_options", "live_activity_token"]
    static let androidKeys: KnownNames = ["collapse_key", "priority", "ttl", "restricted_package_name", "data", "notification", "fcm_options", "direct_boot_ok", "bandwidth_constrained_ok", "restricted_satellite_ok"]
    static let webpushKeys: KnownNames = ["headers", "data", "notification", "fcm_options"]
    static let messageOptionKeys: KnownNames = ["analytics_label"]
    static let apnsOptionKeys: KnownNames = ["analytics_label", "image"]
    static let legacyKeys: Set<String> = ["to", "registration_ids", "notification", "data", "priority", "content_available", "mutable_content", "collapse_key", "time_to_live"]

    static func request(_ root: JSONValue, into c: inout FindingCollector) -> Result {
        guard let top = root.objectValue else {
            c.report(RuleCatalog.jsonRootObject, .root, "the request body is \(root.describedForMessage), not an object")
            return Result()
        }
        for m in top.members where !requestKeys.contains(m.key) {
            if legacyKeys.contains(m.key) || FCMTarget.fieldNames.contains(m.key) { continue }
            unknown(m.key, at: .root / m.key, known: requestKeys, into: &c)
        }
        if let v = top["validate_only"], v.boolValue == nil {
            c.report(RuleCatalog.fcmValidateOnlyType, .root / "validate_only", "validate_only is \(v.describedForMessage)")
        }
        guard let messageValue = top["message"] else {
            let legacy = top.keys.filter { legacyKeys.contains($0) || FCMTarget.fieldNames.contains($0) }
            c.report(RuleCatalog.fcmMessageMissing, .root, legacy.isEmpty ? "there is no \"message\" object"
                     : "there is no \"message\" object; \(legacy.joined(separator: ", ")) at the top level \(legacy.contains("to") || legacy.contains("registration_ids") ? "is the legacy HTTP API format" : "must be inside message")")
            return Result()
        }
        guard let message = messageValue.objectValue else {
            c.report(RuleCatalog.fcmFieldType, .root / "message", "message is \(messageValue.describedForMessage); expected an object")
            return Result()
        }
        return self.message(message, at: .root / "message", into: &c)
    }

    static func message(_ m: JSONObject, at p: JSONPointer, into c: inout FindingCollector) -> Result {
        var result = Result()
        for mem in m.members where !messageKeys.contains(mem.key) {
            if APSChecks.cioKeys.contains(mem.key) {
                c.report(RuleCatalog.fcmUnknownField, p / mem.key, "message.\(mem.key) is not a message field; Customer.io keys belong under message.apns.payload",
                         fix: "move \(mem.key) into message.apns.payload")
            } else {
                unknown(mem.key, at: p / mem.key, known: messageKeys, into: &c)
            }
        }
        target(m, at: p, into: &c)
        if let data = m["data"] { stringMap(data, at: p / "data", reservedCheck: true, rule: RuleCatalog.fcmDataString, into: &c) }
        var implied = APNsChecks.Implied()
        if let n = m["notification"] {
            notification(n, at: p / "notification", into: &c)
            let o = n.objectValue
            implied.aps = true
            implied.alert = !(o?["title"]?.stringValue ?? "").isEmpty || !(o?["body"]?.stringValue ?? "").isEmpty
        }
        if let apns = m["apns"] { result.pushType = self.apns(apns, at: p / "apns", implied: implied, into: &c) }
        if let android = m["android"] { self.android(android, at: p / "android", into: &c) }
        if let web = m["webpush"] { webpush(web, at: p / "webpush", into: &c) }
        if let opts = m["fcm_options"] { options(opts, at: p / "fcm_options", known: messageOptionKeys, into: &c) }

        // Size: the message content, i.e. the message without its target (pushlab's reading of
        // docs/specs/fcm.md's "4096 bytes of message content"; 2048 for topic messages).
        // Counted as `JSONValue.minifiedByteCount` counts an object, over the members that are
        // not the target (a copy of the message without them cost an array per request).
        var size = 2, contentMembers = 0
        for mem in m.members where !FCMTarget.fieldNames.contains(mem.key) {
            size += JSONValue.escapedCount(mem.key) + 1 + mem.value.minifiedByteCount
            contentMembers += 1
        }
        size += max(contentMembers - 1, 0)
        let limit = m["topic"] != nil ? FCMTarget.topicContentLimit : FCMTarget.contentLimit
        result.byteCount = size
        result.byteLimit = limit
        if size > limit {
            c.report(RuleCatalog.fcmSizeMax, p, "the message content is \(size) bytes, over the \(limit)-byte limit\(limit == FCMTarget.topicContentLimit ? " for topic messages" : "")")
        }
        return result
    }

    static func unknown(_ key: String, at p: JSONPointer, known: KnownNames, into c: inout FindingCollector) {
        c.report(RuleCatalog.fcmUnknownField, p,
                 "\"\(key)\" is not a field here; FCM rejects unknown names" + (known.closest(to: key).map { " — did you mean \"\($0)\"?" } ?? ""))
    }

    static func target(_ m: JSONObject, at p: JSONPointer, into c: inout FindingCollector) {
        let targets = FCMTarget.fieldNames.filter { m[$0] != nil }
        if targets.count != 1 {
            c.report(RuleCatalog.fcmTargetCount, targets.count > 1 ? p / targets[1] : p,
                     targets.isEmpty ? "the message has no target (fid, token, topic or condition)" : "the message has \(targets.count) targets: \(targets.joined(separator: ", "))")
        }
        for key in targets {
            let v = m[key]!
            guard let s = v.stringValue else {
                c.report(RuleCatalog.fcmFieldType, p / key, "\(key) is \(v.describedForMessage); expected a string")
                continue
            }
            if let problem = targetProblem(field: key, value: s) { c.report(problem.rule, p / key, problem.message, fix: problem.fix) }
        }
    }

    /// The finding for a target field's string value, nil when its shape fits (the validator
    /// and `FCMSendRequest.onePass`, which must agree).
    static func targetProblem(field key: String, value s: String) -> (rule: ValidationRule, message: String, fix: String?)? {
        switch key {
        case "fid":
            return FirebaseInstallationID.problem(s).map { (RuleCatalog.fcmFIDShape, $0.message, $0.fix) }
        case "token":
            return DeviceToken.problem(s, for: .fcm).map {
                ($0.code == .apnsTokenSentToFCM ? RuleCatalog.fcmTokenAPNs : RuleCatalog.fcmTokenShape, $0.message, $0.fix)
            }
        case "topic":
            return FCMTarget.isValidTopic(s) ? nil : (RuleCatalog.fcmTopicFormat, "topic \"\(s)\" has characters outside [a-zA-Z0-9-_.~%]", nil)
        default:
            let topics = occurrences(of: "in topics", in: s)
            if topics == 0 || topics > 5 {
                return (RuleCatalog.fcmConditionFormat,
                        topics == 0 ? "condition \"\(s)\" names no topic ('<topic>' in topics)" : "condition names \(topics) topics; at most 5 are allowed", nil)
            }
            return nil
        }
    }

    static func occurrences(of needle: String, in text: String) -> Int {
        let h = Array(text.utf8), n = Array(needle.utf8)
        guard h.count >= n.count else { return 0 }
        var count = 0, i = 0
        while i <= h.count - n.count {
            if h[i] == n[0], Array(h[i..<i + n.count]) == n { count += 1; i += n.count } else { i += 1 }
        }
        return count
    }

    /// An object whose values must all be strings (data maps, headers).
    static func stringMap(_ v: JSONValue, at p: JSONPointer, reservedCheck: Bool, rule: ValidationRule, into c: inout FindingCollector) {
        guard let o = v.objectValue else {
            c.report(RuleCatalog.fcmFieldType, p, "\(p.lastToken ?? "") is \(v.describedForMessage); expected an object of strings")
            return
        }
        for m in o.members {
            if m.value.stringValue == nil {
                let quoted = m.value.isContainer ? "a JSON-encoded string" : "\"\(m.value.minifiedString)\""
                c.report(rule, p / m.key, "\(m.key) is \(m.value.describedForMessage); FCM accepts only strings here (TYPE_STRING)",
                         fix: "write it as \(quoted)")
            }
            if reservedCheck {
                if isReservedDataKey(m.key) {
                    c.report(RuleCatalog.fcmDataReserved, p / m.key, "data key \"\(m.key)\" is reserved")
                }
                if m.key == cioDataKey {
                    c.report(RuleCatalog.fcmAPNsPayloadCIO, p / m.key, "CIO in data arrives on iOS as a string, which the SDK does not read")
                }
            }
        }
    }

    /// `from`, `gcm` and `google…` in any case: data keys FCM reserves.
    static func isReservedDataKey(_ key: String) -> Bool {
        // An ASCII key (every key in practice; the gateway asks this of each data key of each
        // message) is folded byte by byte, exact for these all-letter words; any other key takes
        // the Unicode fold and comparison.
        let utf8 = key.utf8
        if let reserved = utf8.withContiguousStorageIfAvailable({ bytes -> Bool? in
            guard bytes.allSatisfy({ $0 < 0x80 }) else { return nil }
            func starts(with word: StaticString) -> Bool {
                let n = word.utf8CodeUnitCount
                guard bytes.count >= n else { return false }
                for k in 0..<n where bytes[k] | 0x20 != word.utf8Start[k] { return false }
                return true
            }
            return bytes.count == 4 && starts(with: "from") || bytes.count == 3 && starts(with: "gcm") || starts(with: "google")
        }), let reserved {
            return reserved
        }
        let lower = key.lowercased()
        return lower == "from" || lower == "gcm" || lower.hasPrefix("google")
    }

    /// `CIO` in `data`: reaches iOS as a string the SDK does not read (fcm.apns.cio-placement).
    static let cioDataKey = "CIO"

    /// A `notification.image` FCM refuses: an absolute URL whose scheme is not https; nil when fine.
    static func imageProblem(_ s: String) -> String? {
        guard let url = URLShape(s), url.lowercasedScheme != "https" else { return nil }
        return "notification.image uses \(url.scheme)://"
    }

    static func options(_ v: JSONValue, at p: JSONPointer, known: KnownNames, into c: inout FindingCollector) {
        guard let o = v.objectValue else {
            c.report(RuleCatalog.fcmFieldType, p, "fcm_options is \(v.describedForMessage); expected an object")
            return
        }
        for m in o.members {
            if !known.contains(m.key) { unknown(m.key, at: p / m.key, known: known, into: &c) }
            else if m.value.stringValue == nil { c.report(RuleCatalog.fcmFieldType, p / m.key, "\(m.key) is \(m.value.describedForMessage); expected a string") }
        }
    }

    static func notification(_ v: JSONValue, at p: JSONPointer, into c: inout FindingCollector) {
        guard let o = v.objectValue else {
            c.report(RuleCatalog.fcmFieldType, p, "notification is \(v.describedForMessage); expected an object")
            return
        }
        for m in o.members {
            guard notificationKeys.contains(m.key) else { unknown(m.key, at: p / m.key, known: notificationKeys, into: &c); continue }
            guard let s = m.value.stringValue else {
                c.report(RuleCatalog.fcmFieldType, p / m.key, "notification.\(m.key) is \(m.value.describedForMessage); expected a string")
                continue
            }
            if m.key == "image", let problem = imageProblem(s) { c.report(RuleCatalog.fcmNotificationImageHTTPS, p / m.key, problem) }
        }
    }

    static func apns(_ v: JSONValue, at p: JSONPointer, implied: APNsChecks.Implied, into c: inout FindingCollector) -> APNsPushType? {
        guard let o = v.objectValue else {
            c.report(RuleCatalog.fcmFieldType, p, "apns is \(v.describedForMessage); expected an object")
            return nil
        }
        for m in o.members where !apnsKeys.contains(m.key) { unknown(m.key, at: p / m.key, known: apnsKeys, into: &c) }
        var implied = implied
        var context = APNsRequest()
        if let h = o["headers"] {
            stringMap(h, at: p / "headers", reservedCheck: false, rule: RuleCatalog.fcmAPNsHeadersString, into: &c)
            let ho = h.objectValue
            func header(_ name: String) -> String? {
                guard let v = ho?[name] else { return nil }
                return v.stringValue ?? v.numberValue?.text
            }
            context = APNsRequest(pushType: header(APNsHeader.pushType), priority: header(APNsHeader.priority),
                                  expiration: header(APNsHeader.expiration), collapseID: header(APNsHeader.collapseID))
        }
        let explicit = APNsChecks.headers(context, base: p / "headers", into: &c)
        if let opts = o["fcm_options"] {
            options(opts, at: p / "fcm_options", known: apnsOptionKeys, into: &c)
            // FCM sets mutable-content itself when apns.fcm_options.image is given.
            if opts["image"]?.stringValue != nil { implied.mutableContent = true }
        }
        // firebase-admin: a non-empty string (docs/specs/fcm.md "Live Activities through FCM").
        if let token = o["live_activity_token"], (token.stringValue ?? "").isEmpty {
            c.report(RuleCatalog.fcmFieldType, p / "live_activity_token",
                     "live_activity_token is \(token.describedForMessage); expected the non-empty ActivityKit push-to-start or push token")
        }
        guard let payload = o["payload"] else { return explicit }
        let pushType = explicit ?? APNsPushType.inferred(from: payload)
        if let required = explicit?.requiredPriority {
            let priority = context.priority?.known ?? .immediate
            if priority != required {
                c.report(RuleCatalog.apnsBackgroundPriority, p / "headers" / APNsHeader.priority,
                         context.priority.map { "a background push is sent with apns-priority \($0)" }
                            ?? "a background push without apns-priority is sent at priority \(APNsPriority.immediate)")
            }
        }
        APNsChecks.payload(payload, base: p / "payload", pushType: pushType, explicitPushType: explicit != nil, implied: implied, into: &c)
        let size = payload.minifiedByteCount
        if APNsRequestRules.isTooLarge(byteCount: size, pushType: pushType) {
            c.report(RuleCatalog.apnsSizeMax, p / "payload", "apns.payload is \(size) bytes minified, over the \(pushType.maximumPayloadBytes)-byte APNs limit")
        }
        return pushType
    }

    static func android(_ v: JSONValue, at p: JSONPointer, into c: inout FindingCollector) {
        guard let o = v.objectValue else {
            c.report(RuleCatalog.fcmFieldType, p, "android is \(v.describedForMessage); expected an object")
            return
        }
        for m in o.members where !androidKeys.contains(m.key) { unknown(m.key, at: p / m.key, known: androidKeys, into: &c) }
        if let ttl = o["ttl"], !isValidTTL(ttl) {
            c.report(RuleCatalog.fcmAndroidTTL, p / "ttl", "android.ttl is \(ttl.describedForMessage)")
        }
        if let pr = o["priority"], !["normal", "high", "NORMAL", "HIGH"].contains(pr.stringValue ?? "") {
            c.report(RuleCatalog.fcmAndroidPriority, p / "priority", "android.priority is \(pr.describedForMessage)")
        }
        if let data = o["data"] { stringMap(data, at: p / "data", reservedCheck: true, rule: RuleCatalog.fcmDataString, into: &c) }
        for key in ["collapse_key", "restricted_package_name"] {
            if let v = o[key], v.stringValue == nil { c.report(RuleCatalog.fcmFieldType, p / key, "\(key) is \(v.describedForMessage); expected a string") }
        }
        if let v = o["direct_boot_ok"], v.boolValue == nil {
            c.report(RuleCatalog.fcmFieldType, p / "direct_boot_ok", "direct_boot_ok is \(v.describedForMessage); expected a boolean")
        }
    }

    /// A protobuf Duration string: `"<seconds>s"` with up to 9 fraction digits, 0…2419200 s.
    static func isValidTTL(_ v: JSONValue) -> Bool {
        guard let s = v.stringValue, s.hasSuffix("s") else { return false }
        let number = s.dropLast()
        let parts = number.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), !parts[0].isEmpty, parts[0].utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return false }
        if parts.count == 2 {
            guard (1...9).contains(parts[1].count), parts[1].utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return false }
        }
        guard let seconds = Double(number) else { return false }
        return seconds >= 0 && seconds <= 2_419_200
    }

    static func webpush(_ v: JSONValue, at p: JSONPointer, into c: inout FindingCollector) {
        guard let o = v.objectValue else {
            c.report(RuleCatalog.fcmFieldType, p, "webpush is \(v.describedForMessage); expected an object")
            return
        }
        for m in o.members where !webpushKeys.contains(m.key) { unknown(m.key, at: p / m.key, known: webpushKeys, into: &c) }
        if let h = o["headers"] { stringMap(h, at: p / "headers", reservedCheck: false, rule: RuleCatalog.fcmWebpushHeadersString, into: &c) }
        if let d = o["data"] { stringMap(d, at: p / "data", reservedCheck: false, rule: RuleCatalog.fcmDataString, into: &c) }
    }
}

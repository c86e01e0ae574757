import Foundation
import PushCore

/// gorush's `POST /api/push` body mapped to the relay's pushes (docs/specs/relay.md §2–5): one
/// push per notification, with the APNs payload and headers or the FCM v1 message gorush would
/// build. Where gorush is wrong, this does the right thing (docs/relay.md "Migrating from gorush"):
/// no tokens, an unknown platform or too many tokens is a 400 naming the field; a silent push
/// goes out as `background` with priority 5; a missing `topic` takes the app's bundle id;
/// `production`/`development` pick each notification's host.
struct GorushRequest {
    struct Notification {
        var notifID: String?
        var platform: Int
        var content: RelayPushContent
        var targets: [PushTarget]
        /// The notification's own JSON, for its idempotency fingerprint.
        var source: [UInt8]
    }
    var notifications: [Notification]

    static let iOS = 1
    static let android = 2
    static let huawei = 3

    /// gorush's texts (router/server.go `pushHandler`, docs/specs/relay.md §3).
    static let missingNotifications = "Missing notifications field."
    static let emptyNotifications = "Notifications field is empty."
    static func overLimit(_ count: Int, _ limit: Int) -> String { "Number of notifications(\(count)) over limit(\(limit))" }

    static func parse(_ body: [UInt8], app: RelayApp, limits: RelayConfig.Limits) throws(APIError) -> GorushRequest {
        let document: JSONDocument
        do {
            document = try JSONDocument.parse(body)
        } catch {
            var e = APIError(400, "invalid_json", field: "body", "the body is not JSON: \(error)",
                             fix: "send {\"notifications\": [{\"tokens\": [\"…\"], \"platform\": 1, \"message\": \"Hello\"}]}")
            e.gorushMessage = missingNotifications
            throw e
        }
        do {
            return try parse(document.root, app: app, limits: limits)
        } catch let error as APIError {
            throw error
        } catch let error as GorushFieldError {
            var e = APIError(error.field)
            e.gorushMessage = error.gorushMessage
            throw e
        } catch let error as FieldError {
            throw APIError(error)
        } catch {
            throw APIError(400, "invalid_request", "\(error)", fix: "see docs/relay.md")
        }
    }

    /// A refusal for which gorush has its own text.
    struct GorushFieldError: Error {
        var field: FieldError
        var gorushMessage: String
    }

    private static func parse(_ root: JSONValue, app: RelayApp, limits: RelayConfig.Limits) throws -> GorushRequest {
        let top: ObjectReader
        do {
            top = try ObjectReader(CaseFolded.fold(root), at: .root, what: "a JSON object")
        } catch {
            throw GorushFieldError(field: error, gorushMessage: missingNotifications)
        }
        let at = JSONPointer.root / "notifications"
        guard let list = top.value("notifications") else {
            throw GorushFieldError(field: FieldError(at, "is missing", fix: "send {\"notifications\": [ … ]}"), gorushMessage: missingNotifications)
        }
        guard case .array(let array) = list else {
            throw GorushFieldError(field: FieldError(at, "must be an array, got \(list.typeName)", fix: "send {\"notifications\": [ … ]}"),
                                   gorushMessage: missingNotifications)
        }
        // Go decodes the whole body first: a type error anywhere wins over every other refusal.
        for (i, element) in array.elements.enumerated() {
            switch element {
            case .object(let o):
                do { try GorushFieldTypes.check(o, at: at / i) } catch { throw GorushFieldError(field: error, gorushMessage: missingNotifications) }
            case .null:
                continue
            default:
                throw GorushFieldError(field: FieldError(at / i, "must be an object, got \(element.typeName)", fix: "write each notification as {…}"),
                                       gorushMessage: missingNotifications)
            }
        }
        guard !array.isEmpty else {
            throw GorushFieldError(field: FieldError(at, "is empty", fix: "add at least one notification"), gorushMessage: emptyNotifications)
        }
        guard array.count <= limits.maxNotifications else {
            throw GorushFieldError(field: FieldError(at, "\(array.count) notifications is over the limit of \(limits.maxNotifications)",
                                                     fix: "split them over several requests (limits.max_notifications in relay.json)"),
                                   gorushMessage: overLimit(array.count, limits.maxNotifications))
        }
        var out: [Notification] = []
        var total = 0
        for (i, element) in array.elements.enumerated() {
            let n = try notification(element, at: at / i, app: app)
            total += n.targets.count
            guard total <= limits.maxTargets else {
                throw FieldError(at / i / "tokens", "the request has more than \(limits.maxTargets) targets",
                                 fix: "split the tokens over several requests (limits.max_targets in relay.json)")
            }
            out.append(n)
        }
        return GorushRequest(notifications: out)
    }

    private static func notification(_ value: JSONValue, at pointer: JSONPointer, app: RelayApp) throws -> Notification {
        let n = try ObjectReader(value, at: pointer)
        guard let platform = try n.int("platform", range: Int.min...Int.max) else {
            throw FieldError(pointer / "platform", "is required", fix: "write 1 for iOS (APNs) or 2 for Android (FCM)")
        }
        var tokens = try n.stringArray("tokens", example: "<device token>") ?? []
        // notify/notification.go CheckMessage: `to` joins the tokens, on every platform.
        if let to = try n.string("to", example: "<device token>"), !to.isEmpty { tokens.append(to) }
        let notifID = try n.string("notif_id", example: "order-42")
        let source = value.minifiedBytes()
        switch platform {
        case iOS:
            guard let config = app.apns else {
                throw FieldError(pointer / "platform", "app '\(app.name)' has no APNs credentials", fix: "add \"apns\" to the app in relay.json")
            }
            guard !tokens.isEmpty else {
                throw FieldError(pointer / "tokens", "no tokens (gorush would answer 200 and send nothing)", fix: "add at least one APNs device token")
            }
            for (t, token) in tokens.enumerated() {
                if let problem = DeviceToken.problem(token, for: .apns) { throw FieldError(pointer / "tokens" / t, problem.message, fix: problem.fix) }
            }
            let production = try n.bool("production") ?? false
            let development = try n.bool("development") ?? false
            let environment: APNsEnvironment? = production ? .production : development ? .sandbox : nil
            let apns = try apnsContent(n, config: config)
            return Notification(notifID: notifID, platform: platform, content: RelayPushContent(apns: apns),
                                targets: tokens.map { PushTarget(kind: .apnsToken, value: $0, environment: environment) }, source: source)
        case android:
            guard app.fcm != nil else {
                throw FieldError(pointer / "platform", "app '\(app.name)' has no FCM credentials", fix: "add \"fcm\" to the app in relay.json")
            }
            var targets: [PushTarget] = []
            if let topic = try n.string("topic", example: "news"), !topic.isEmpty {
                targets.append(PushTarget(kind: .fcmTopic, value: topic.hasPrefix("/topics/") ? String(topic.dropFirst(8)) : topic))
            }
            if let condition = try n.string("condition", example: "'news' in topics"), !condition.isEmpty {
                targets.append(PushTarget(kind: .fcmCondition, value: condition))
            }
            targets += tokens.map { PushTarget(kind: .fcmToken, value: $0) }
            guard !targets.isEmpty else {
                throw FieldError(pointer / "tokens", "no tokens, topic or condition (gorush would answer 200 and send nothing)",
                                 fix: "add \"tokens\", \"to\", \"topic\" or \"condition\"")
            }
            for (t, token) in tokens.enumerated() {
                if let problem = DeviceToken.problem(token, for: .fcm) { throw FieldError(pointer / "tokens" / t, problem.message, fix: problem.fix) }
            }
            let message = try fcmMessage(n)
            let first = targets[0]
            let key = first.kind == .fcmToken ? "token" : first.kind == .fcmTopic ? "topic" : "condition"
            let report = Validator().validate(.object(JSONObject([JSONMember(key: "message", value: .object(JSONObject(message.members + [JSONMember(key: key, value: .string(first.value))])))])), as: .fcm)
            if report.hasErrors {
                throw APIError(400, "invalid_payload", field: pointer.description, "the FCM message built from this notification breaks the catalog",
                               fix: report.errors.first?.fix ?? "see findings", findings: report.errors)
            }
            return Notification(notifID: notifID, platform: platform, content: RelayPushContent(fcm: .init(message: JSONValue.object(message).minifiedString)),
                                targets: targets, source: source)
        case huawei:
            throw FieldError(pointer / "platform", "platform 3 (Huawei HMS) is not supported by pushlab relay", fix: "send to HMS directly, or use 1 (iOS) or 2 (Android)")
        default:
            throw FieldError(pointer / "platform", "\(platform) is not a platform (gorush would drop it silently)", fix: "write 1 for iOS (APNs) or 2 for Android (FCM)")
        }
    }

    // MARK: - iOS (notify/notification_apns.go GetIOSNotification, sideshow/apns2 payload builder)

    /// An `aps` under construction, with apns2's two lazily made dictionaries: `alert()` and
    /// `sound()` replace whatever else is there by a fresh dictionary, as apns2 does.
    private struct APS {
        var members = JSONObject()
        subscript(key: String) -> JSONValue? {
            get { members[key] }
            set {
                members.members.removeAll { $0.key == key }
                if let newValue { members.members.append(JSONMember(key: key, value: newValue)) }
            }
        }
        mutating func alert(_ key: String, _ value: JSONValue) {
            var dict: JSONObject
            if case .object(let o)? = self["alert"] { dict = o } else { dict = JSONObject() }
            dict.members.removeAll { $0.key == key }
            dict.members.append(JSONMember(key: key, value: value))
            self["alert"] = .object(dict)
        }
        /// apns2 `sound()`: a sound dictionary it made itself is kept; anything else becomes
        /// `{critical: 1, name: "default", volume: 1}`.
        var soundIsDictionary = false
        mutating func sound(_ key: String, _ value: JSONValue) {
            var dict: JSONObject
            if soundIsDictionary, case .object(let o)? = self["sound"] {
                dict = o
            } else {
                dict = JSONObject([JSONMember(key: "critical", value: 1), JSONMember(key: "name", value: .string("default")),
                                   JSONMember(key: "volume", value: 1)])
            }
            dict.members = dict.members.map { $0.key == key ? JSONMember(key: key, value: value) : $0 }
            self["sound"] = .object(dict)
            soundIsDictionary = true
        }
    }

    private static func nonEmpty(_ s: String?) -> String? { s.flatMap { $0.isEmpty ? nil : $0 } }

    private static func apnsContent(_ n: ObjectReader, config: RelayApp.APNs) throws -> RelayPushContent.APNs {
        var aps = APS()
        let title = try n.string("title", example: "Hello") ?? ""
        let message = try n.string("message", example: "Hello") ?? ""
        // buildIOSPayload, in gorush's order.
        if !message.isEmpty && title.isEmpty { aps["alert"] = .string(message) }
        if let badge = try n.int("badge", range: Int.min...Int.max), badge >= 0 { aps["badge"] = .number(JSONNumber(badge)) }
        if try n.bool("mutable_content") ?? false { aps["mutable-content"] = 1 }
        switch n.value("sound") {
        case .string(let s)?:
            aps["sound"] = .string(s)
        case .object(let o)?:
            // Decoded into gorush's Sound{critical int, name string, volume float32}, zero values left out.
            var dict = JSONObject()
            if case .number(let c)? = o["critical"], c.doubleValue != 0 { dict.members.append(JSONMember(key: "critical", value: .number(c))) }
            if case .string(let name)? = o["name"], !name.isEmpty { dict.members.append(JSONMember(key: "name", value: .string(name))) }
            if case .number(let v)? = o["volume"], v.doubleValue != 0 { dict.members.append(JSONMember(key: "volume", value: .number(v))) }
            aps["sound"] = .object(dict)
        default:
            break
        }
        if let name = nonEmpty(try n.string("name", example: "default")) { aps.sound("name", .string(name)) }
        if case .number(let volume)? = n.value("volume"), volume.doubleValue > 0 { aps.sound("volume", .number(volume)) }
        let contentAvailable = try n.bool("content_available") ?? false
        if contentAvailable { aps["content-available"] = 1 }
        if let args = try n.stringArray("url-args", example: "a"), !args.isEmpty { aps["url-args"] = .array(JSONArray(args.map { .string($0) })) }
        if let thread = nonEmpty(try n.string("thread-id", example: "chat-1")) { aps["thread-id"] = .string(thread) }
        let custom = try apnsCustomKeys(n)
        try addAlertDictionary(to: &aps, from: n, title: title, message: message)
        try addLiveActivityFields(to: &aps, from: n)

        var payload = JSONObject([JSONMember(key: "aps", value: .object(aps.members))])
        payload.members += custom
        let silent = contentAvailable && aps["alert"] == nil && aps["sound"] == nil && aps["badge"] == nil
        return try apnsRequestContent(n, payload: payload, silent: silent, config: config)
    }

    /// The `data` keys, which go next to `aps` in the payload.
    private static func apnsCustomKeys(_ n: ObjectReader) throws -> [JSONMember] {
        if let data = try n.object("data") {
            if data.object["aps"] != nil {
                // apns2 would put it in place of the payload's aps, and gorush's worker then panics.
                throw FieldError(data.pointer / "aps", "a data key 'aps' would replace the payload's aps (gorush's worker crashes on it)",
                                 fix: "rename the key; data keys go next to aps")
            }
            return data.object.members
        }
        return []
    }

    /// gorush's iosAlertDictionary: the `alert` dictionary's keys, the top-level title/message first.
    private static func addAlertDictionary(to aps: inout APS, from n: ObjectReader, title: String, message: String) throws {
        if let level = nonEmpty(try n.string("interruption_level", example: "active")) { aps["interruption-level"] = .string(level) }
        if let category = nonEmpty(try n.string("category", example: "MESSAGE")) { aps["category"] = .string(category) }
        let alert = try n.object("alert")
        func alertString(_ key: String) throws -> String? { try nonEmpty(alert?.string(key, example: "")) }
        func alertArray(_ key: String) throws -> JSONValue? {
            guard let a = try alert?.stringArray(key, example: ""), !a.isEmpty else { return nil }
            return .array(JSONArray(a.map { .string($0) }))
        }
        if !title.isEmpty { aps.alert("title", .string(title)) }
        if !message.isEmpty && !title.isEmpty { aps.alert("body", .string(message)) }
        for key in ["title", "body", "subtitle"] { if let v = try alertString(key) { aps.alert(key, .string(v)) } }
        if let v = try alertString("title-loc-key") { aps.alert("title-loc-key", .string(v)) }
        if let v = try alertArray("title-loc-args") { aps.alert("title-loc-args", v) }
        if let v = try alertString("loc-key") { aps.alert("loc-key", .string(v)) }
        if let v = try alertArray("loc-args") { aps.alert("loc-args", v) }
        for key in ["action-loc-key", "launch-image", "action", "summary-arg"] { if let v = try alertString(key) { aps.alert(key, .string(v)) } }
        if let count = try alert?.int("summary-arg-count", range: Int.min...Int.max), count > 0 { aps.alert("summary-arg-count", .number(JSONNumber(count))) }
    }

    /// gorush's setLiveActivityFields.
    private static func addLiveActivityFields(to aps: inout APS, from n: ObjectReader) throws {
        if let state = try n.object("content-state"), !state.object.isEmpty { aps["content-state"] = .object(state.object) }
        if let v = try n.int("stale-date", range: Int.min...Int.max), v > 0 { aps["stale-date"] = .number(JSONNumber(v)) }
        if let v = try n.int("dismissal-date", range: Int.min...Int.max), v > 0 { aps["dismissal-date"] = .number(JSONNumber(v)) }
        if let event = nonEmpty(try n.string("event", example: "update")) { aps["event"] = .string(event) }
        if let v = try n.int("timestamp", range: Int.min...Int.max), v > 0 { aps["timestamp"] = .number(JSONNumber(v)) }
        if let type = nonEmpty(try n.string("attributes-type", example: "DeliveryAttributes")) { aps["attributes-type"] = .string(type) }
        if let attributes = try n.object("attributes"), !attributes.object.isEmpty { aps["attributes"] = .object(attributes.object) }
        if case .number(let score)? = n.value("relevance-score") { aps["relevance-score"] = .number(score) }
    }

    /// The APNs headers around a built payload, checked against the catalog.
    private static func apnsRequestContent(_ n: ObjectReader, payload: JSONObject, silent: Bool,
                                           config: RelayApp.APNs) throws -> RelayPushContent.APNs {
        // gorush sends `alert` for everything; a push with only content-available is a
        // background push and APNs wants it as such, with priority 5 (docs/specs/apns.md).
        let explicit = try n.oneOf("push_type", APNsPushType.self)
        let pushType = explicit ?? (silent ? .background : .alert)
        var priority: Int?
        switch try n.string("priority", example: "high") {
        case "high"?: priority = 10
        case "normal"?: priority = 5
        default: priority = nil
        }
        if pushType == .background { priority = 5 }
        let topic = nonEmpty(try n.string("topic", example: config.bundleID)) ?? pushType.topic(forBundleID: config.bundleID)
        let expiration = try n.int("expiration", range: Int.min...Int.max).flatMap { $0 > 0 ? $0 : nil }
        let collapseID = nonEmpty(try n.string("collapse_id", example: "order-42"))
        let apnsID = nonEmpty(try n.string("apns_id", example: "123e4567-e89b-12d3-a456-426614174000"))
        let bytes = JSONValue.object(payload).minifiedBytes()
        let context = APNsRequest(pushType: pushType.rawValue, priority: priority.map(String.init), topic: topic,
                                  expiration: expiration.map(String.init), collapseID: collapseID, apnsID: apnsID)
        if APNsRequestRule.apnsIDIsCanonicalUUID.isViolated(by: context) {
            throw FieldError(n.pointer / "apns_id", "'\(apnsID ?? "")' is not a canonical UUID (APNs answers BadMessageId)",
                             fix: "write a UUID like 123e4567-e89b-12d3-a456-426614174000, or leave it out and APNs makes one")
        }
        let report = Validator(options: ValidationOptions(apns: context)).validate(bytes: bytes, as: .apns)
        if report.hasErrors {
            throw APIError(400, "invalid_payload", field: n.pointer.description, "the APNs payload built from this notification breaks the catalog (pointers inside the payload)",
                           fix: report.errors.first?.fix ?? "see findings", findings: report.errors)
        }
        return RelayPushContent.APNs(payload: String(decoding: bytes, as: UTF8.self), pushType: pushType, priority: priority,
                                     expiration: expiration, collapseID: collapseID, topic: topic, apnsID: apnsID, onlyGivenHeaders: true)
    }

    // MARK: - Android (notify/notification_fcm.go GetAndroidNotification, firebase-admin-go)

    private static func fcmMessage(_ n: ObjectReader) throws -> JSONObject {
        var notification = try givenFCMNotification(n)
        var apns: JSONObject? = try n.object("apns")?.object
        var android: JSONObject? = try n.object("android")?.object
        let title = nonEmpty(try n.string("title", example: "Hello"))
        let body = nonEmpty(try n.string("message", example: "Hello"))
        let image = nonEmpty(try n.string("image", example: "https://example.com/a.png"))
        let priority = nonEmpty(try n.string("priority", example: "high"))
        if let priority, priority != "high" && priority != "normal" {
            throw FieldError(n.pointer / "priority", "'\(priority)' is not an FCM priority (firebase-admin refuses the whole batch)",
                             fix: "write \"high\" or \"normal\"")
        }
        // setupFCMNotification
        if title != nil || body != nil || image != nil {
            var o = notification ?? JSONObject()
            if let title { replaceMember(&o, "title", .string(title)) }
            if let body { replaceMember(&o, "body", .string(body)) }
            if let image { replaceMember(&o, "image", .string(image)) }
            notification = o
            if try n.bool("mutable_content") ?? false {
                // The iOS half: an iOS device reached through FCM runs its notification service extension.
                apns = JSONObject([JSONMember(key: "payload", value: .object(JSONObject([
                    JSONMember(key: "aps", value: .object(JSONObject([JSONMember(key: "mutable-content", value: 1)])))])))])
            }
        }
        let data = try n.object("data")
        if try n.bool("content_available") ?? false { apns = contentAvailableAPNs(data: data) }
        if case .string(let sound)? = n.value("sound") { addFCMSound(sound, priority: priority, apns: &apns, android: &android) }
        // setupFCMPriority: the client's own android.priority wins.
        if let priority {
            var o = android ?? JSONObject()
            if nonEmpty(o["priority"]?.stringValue) == nil { replaceMember(&o, "priority", .string(priority)) }
            android = o
        }
        return try assembleFCMMessage(n, notification: notification, data: data, android: android, apns: apns)
    }

    /// The client's own `notification` (messaging.Notification: title, body, image, each left out when empty).
    private static func givenFCMNotification(_ n: ObjectReader) throws -> JSONObject? {
        guard let given = try n.object("notification") else { return nil }
        var o = JSONObject()
        for key in ["title", "body", "image"] {
            if let v = nonEmpty(try given.string(key, example: "")) { o.members.append(JSONMember(key: key, value: .string(v))) }
        }
        return o
    }

    private static func replaceMember(_ object: inout JSONObject, _ key: String, _ value: JSONValue) {
        object.members.removeAll { $0.key == key }
        object.members.append(JSONMember(key: key, value: value))
    }

    /// gorush's setupFCMContentAvailable: a background push for iOS at priority 5.
    private static func contentAvailableAPNs(data: ObjectReader?) -> JSONObject {
        // gorush puts the data keys inside `aps`; APNs custom keys belong next to it (a correction).
        var payload = JSONObject([JSONMember(key: "aps", value: .object(JSONObject([JSONMember(key: "content-available", value: 1)])))])
        if let data { payload.members += data.object.members.filter { $0.key != "aps" } }
        return JSONObject([
            JSONMember(key: "headers", value: .object(JSONObject([JSONMember(key: APNsHeader.priority, value: .string(APNsPriority.powerConsiderate.header))]))),
            JSONMember(key: "payload", value: .object(payload)),
        ])
    }

    /// gorush's setupFCMSound: a string sound reaches iOS (apns.payload.aps.sound) and, when the
    /// client sent no `android`, Android too.
    private static func addFCMSound(_ sound: String, priority: String?, apns: inout JSONObject?, android: inout JSONObject?) {
        var a = apns ?? JSONObject()
        var payload: JSONObject
        if case .object(let p)? = a["payload"] { payload = p } else { payload = JSONObject() }
        var aps: JSONObject
        if case .object(let o)? = payload["aps"] { aps = o } else { aps = JSONObject() }
        if !sound.isEmpty { replaceMember(&aps, "sound", .string(sound)) }  // firebase-admin leaves an empty sound out
        replaceMember(&payload, "aps", .object(aps))
        replaceMember(&a, "payload", .object(payload))
        apns = a
        if android == nil {
            var o = JSONObject()
            if let priority { o.members.append(JSONMember(key: "priority", value: .string(priority))) }
            o.members.append(JSONMember(key: "notification", value: .object(JSONObject(sound.isEmpty ? [] : [JSONMember(key: "sound", value: .string(sound))]))))
            android = o
        }
    }

    /// The message's members in firebase-admin's order.
    private static func assembleFCMMessage(_ n: ObjectReader, notification: JSONObject?, data: ObjectReader?,
                                           android: JSONObject?, apns: JSONObject?) throws -> JSONObject {
        var message = JSONObject()
        // An object the client gave is sent even when empty, as firebase-admin sends a non-nil struct.
        if let notification { message.members.append(JSONMember(key: "notification", value: .object(notification))) }
        if let data, !data.object.isEmpty {
            // FCM data values are strings; gorush writes the others as Go's encoding/json does.
            var strings: [String: String] = [:]
            var order: [String] = []
            for m in data.object.members {
                if strings[m.key] == nil { order.append(m.key) }
                if case .string(let s) = m.value { strings[m.key] = s } else { strings[m.key] = GoJSONText.encode(m.value) }
            }
            message.members.append(JSONMember(key: "data", value: .object(JSONObject(order.map { JSONMember(key: $0, value: .string(strings[$0]!)) }))))
        }
        if let android { message.members.append(JSONMember(key: "android", value: .object(android))) }
        if let apns { message.members.append(JSONMember(key: "apns", value: .object(apns))) }
        for key in ["webpush", "fcm_options"] {
            if let v = try n.object(key) { message.members.append(JSONMember(key: key, value: .object(v.object))) }
        }
        return message
    }
}

/// gorush decodes with Go's encoding/json, where keys match case-insensitively: fold every
/// object key that names a known field to its lowercase spelling.
enum CaseFolded {
    static func fold(_ value: JSONValue, depth: Int = 0) -> JSONValue {
        guard depth < 3 else { return value }
        switch value {
        case .object(let o):
            return .object(JSONObject(o.members.map { m in
                let lower = m.key.lowercased()
                // Only gorush's own levels (request, notification) are folded; payload contents stay as sent.
                let keep = ["data", "android", "apns", "webpush", "fcm_options", "content-state", "attributes", "alert", "notification"].contains(lower)
                return JSONMember(key: lower, value: keep ? m.value : fold(m.value, depth: depth + 1), keyOffset: m.keyOffset, valueOffset: m.valueOffset)
            }))
        case .array(let a):
            return .array(JSONArray(a.elements.map { fold($0, depth: depth + 1) }, offsets: a.offsets))
        default:
            return value
        }
    }
}

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

    static func parse(_ body: [UInt8], app: RelayApp, limits: RelayConfig.Limits) throws(APIError) -> GorushRequest {
        let document: JSONDocument
        do {
            document = try JSONDocument.parse(body)
        } catch {
            throw APIError(400, "invalid_json", field: "/notifications", "the body is not JSON: \(error)",
                           fix: "send {\"notifications\": [{\"tokens\": [\"…\"], \"platform\": 1, \"message\": \"Hello\"}]}")
        }
        do {
            return try parse(document.root, app: app, limits: limits)
        } catch let error as APIError {
            throw error
        } catch let error as FieldError {
            throw APIError(error)
        } catch {
            throw APIError(400, "invalid_request", "\(error)", fix: "see docs/relay.md")
        }
    }

    private static func parse(_ root: JSONValue, app: RelayApp, limits: RelayConfig.Limits) throws -> GorushRequest {
        let top = try ObjectReader(CaseFolded.fold(root), at: .root, what: "a JSON object")
        guard let list = top.value("notifications") else {
            throw FieldError(JSONPointer.root / "notifications", "is missing", fix: "send {\"notifications\": [ … ]}")
        }
        guard case .array(let array) = list else {
            throw FieldError(JSONPointer.root / "notifications", "must be an array, got \(list.typeName)", fix: "send {\"notifications\": [ … ]}")
        }
        guard !array.isEmpty else {
            throw FieldError(JSONPointer.root / "notifications", "is empty", fix: "add at least one notification")
        }
        guard array.count <= limits.maxNotifications else {
            throw FieldError(JSONPointer.root / "notifications", "\(array.count) notifications is over the limit of \(limits.maxNotifications)",
                             fix: "split them over several requests (limits.max_notifications in relay.json)")
        }
        var out: [Notification] = []
        var total = 0
        for (i, element) in array.elements.enumerated() {
            let n = try notification(element, at: JSONPointer.root / "notifications" / i, app: app)
            total += n.targets.count
            guard total <= limits.maxTargets else {
                throw FieldError(JSONPointer.root / "notifications" / i / "tokens", "the request has more than \(limits.maxTargets) targets",
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
        let tokens = try n.stringArray("tokens", example: "<device token>") ?? []
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
            var targets = tokens.map { PushTarget(kind: .fcmToken, value: $0) }
            if let to = try n.string("to", example: "<registration token>"), !to.isEmpty { targets.append(PushTarget(kind: .fcmToken, value: to)) }
            if let topic = try n.string("topic", example: "news"), !topic.isEmpty {
                targets.append(PushTarget(kind: .fcmTopic, value: topic.hasPrefix("/topics/") ? String(topic.dropFirst(8)) : topic))
            }
            if let condition = try n.string("condition", example: "'news' in topics"), !condition.isEmpty {
                targets.append(PushTarget(kind: .fcmCondition, value: condition))
            }
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

    // MARK: - iOS (notify/notification_apns.go GetIOSNotification)

    private static let alertKeys = ["title", "subtitle", "body", "action", "action-loc-key", "launch-image", "loc-key", "loc-args",
                                    "title-loc-key", "title-loc-args", "summary-arg", "summary-arg-count"]

    private static func apnsContent(_ n: ObjectReader, config: RelayApp.APNs) throws -> RelayPushContent.APNs {
        var aps = JSONObject()
        func set(_ key: String, _ value: JSONValue?) { if let value { aps.members.append(JSONMember(key: key, value: value)) } }
        let title = try n.string("title", example: "Hello") ?? ""
        let message = try n.string("message", example: "Hello") ?? ""
        if let alert = try n.object("alert") {
            var dict = JSONObject()
            for key in alertKeys { if let v = alert.value(key) { dict.members.append(JSONMember(key: key, value: v)) } }
            if dict.isEmpty {
                if !title.isEmpty { dict.members.append(JSONMember(key: "title", value: .string(title))) }
                if !message.isEmpty { dict.members.append(JSONMember(key: "body", value: .string(message))) }
            }
            if !dict.isEmpty { set("alert", .object(dict)) }
        } else if !title.isEmpty {
            var dict = JSONObject([JSONMember(key: "title", value: .string(title))])
            if !message.isEmpty { dict.members.append(JSONMember(key: "body", value: .string(message))) }
            set("alert", .object(dict))
        } else if !message.isEmpty {
            set("alert", .string(message))
        }
        if let badge = try n.int("badge", range: Int.min...Int.max), badge >= 0 { set("badge", .number(JSONNumber(badge))) }
        if let name = try n.string("name", example: "default") {
            let volume = n.value("volume") ?? .number(JSONNumber(1))
            set("sound", .object(JSONObject([JSONMember(key: "critical", value: 1), JSONMember(key: "name", value: .string(name.isEmpty ? "default" : name)),
                                             JSONMember(key: "volume", value: volume)])))
        } else if let sound = n.value("sound") {
            set("sound", sound)
        }
        for (source, target) in [("category", "category"), ("thread-id", "thread-id"), ("interruption_level", "interruption-level")] {
            set(target, try n.string(source, example: "").flatMap { $0.isEmpty ? nil : JSONValue.string($0) })
        }
        if let args = n.value("url-args") { set("url-args", args) }
        let contentAvailable = try n.bool("content_available") ?? false
        if contentAvailable { set("content-available", 1) }
        if try n.bool("mutable_content") ?? false { set("mutable-content", 1) }
        for key in ["content-state", "attributes"] { set(key, n.value(key)) }
        for key in ["stale-date", "dismissal-date", "timestamp"] {
            if let v = try n.int(key, range: Int.min...Int.max), v > 0 { set(key, .number(JSONNumber(v))) }
        }
        for key in ["event", "attributes-type"] { set(key, try n.string(key, example: "update").map { .string($0) }) }
        if let score = n.value("relevance-score") { set("relevance-score", score) }

        var payload = JSONObject([JSONMember(key: "aps", value: .object(aps))])
        if let data = try n.object("data") {
            for member in data.object.members where member.key != "aps" { payload.members.append(member) }
        }
        // gorush sends `alert` for everything; a push with only content-available is a
        // background push and APNs wants it as such, with priority 5 (docs/specs/apns.md).
        let explicit = try n.oneOf("push_type", APNsPushType.self)
        let silent = contentAvailable && aps["alert"] == nil && aps["sound"] == nil && aps["badge"] == nil
        let pushType = explicit ?? (silent ? .background : .alert)
        var priority: Int?
        switch try n.string("priority", example: "high") {
        case "high"?: priority = 10
        case "normal"?: priority = 5
        default: priority = nil
        }
        if pushType == .background { priority = 5 }
        let topic = try n.string("topic", example: config.bundleID).flatMap { $0.isEmpty ? nil : $0 } ?? pushType.topic(forBundleID: config.bundleID)
        let expiration = try n.int("expiration", range: Int.min...Int.max).flatMap { $0 > 0 ? $0 : nil }
        let collapseID = try n.string("collapse_id", example: "order-42").flatMap { $0.isEmpty ? nil : $0 }
        let bytes = JSONValue.object(payload).minifiedBytes()
        let context = APNsRequest(pushType: pushType.rawValue, priority: priority.map(String.init), topic: topic,
                                         expiration: expiration.map(String.init), collapseID: collapseID)
        let report = Validator(options: ValidationOptions(apns: context)).validate(bytes: bytes, as: .apns)
        if report.hasErrors {
            throw APIError(400, "invalid_payload", field: n.pointer.description, "the APNs payload built from this notification breaks the catalog (pointers inside the payload)",
                           fix: report.errors.first?.fix ?? "see findings", findings: report.errors)
        }
        return RelayPushContent.APNs(payload: String(decoding: bytes, as: UTF8.self), pushType: pushType, priority: priority,
                                     expiration: expiration, collapseID: collapseID, topic: topic)
    }

    // MARK: - Android (notify/notification_fcm.go GetAndroidNotification)

    private static func fcmMessage(_ n: ObjectReader) throws -> JSONObject {
        var message = JSONObject()
        var notification = JSONObject()
        if let given = try n.object("notification") {
            for key in ["title", "body", "image"] { if let v = given.value(key) { notification.members.append(JSONMember(key: key, value: v)) } }
        }
        func override(_ key: String, _ value: String?) {
            guard let value, !value.isEmpty else { return }
            notification.members.removeAll { $0.key == key }
            notification.members.append(JSONMember(key: key, value: .string(value)))
        }
        override("title", try n.string("title", example: "Hello"))
        override("body", try n.string("message", example: "Hello"))
        override("image", try n.string("image", example: "https://example.com/a.png"))
        if !notification.isEmpty { message.members.append(JSONMember(key: "notification", value: .object(notification))) }
        if let data = try n.object("data") {
            // FCM data values are strings; gorush JSON-encodes the others.
            let strings = data.object.members.map { m -> JSONMember in
                if case .string = m.value { return m }
                return JSONMember(key: m.key, value: .string(m.value.minifiedString))
            }
            message.members.append(JSONMember(key: "data", value: .object(JSONObject(strings))))
        }
        var android = try n.object("android")?.object ?? JSONObject()
        if let priority = try n.string("priority", example: "high"), !priority.isEmpty {
            guard priority == "high" || priority == "normal" else {
                throw FieldError(n.pointer / "priority", "'\(priority)' is not an FCM priority", fix: "write \"high\" or \"normal\"")
            }
            android.members.removeAll { $0.key == "priority" }
            android.members.append(JSONMember(key: "priority", value: .string(priority)))
        }
        if n.value("android") == nil, case .string(let sound)? = n.value("sound") {
            android.members.append(JSONMember(key: "notification", value: .object(JSONObject([JSONMember(key: "sound", value: .string(sound))]))))
        }
        if !android.isEmpty { message.members.append(JSONMember(key: "android", value: .object(android))) }
        if try n.bool("content_available") ?? false {
            // gorush puts the data keys inside `aps`; APNs custom keys belong next to it.
            var payload = JSONObject([JSONMember(key: "aps", value: .object(JSONObject([JSONMember(key: "content-available", value: 1)])))])
            if let data = try n.object("data") { payload.members += data.object.members.filter { $0.key != "aps" } }
            message.members.append(JSONMember(key: "apns", value: .object(JSONObject([
                JSONMember(key: "headers", value: .object(JSONObject([JSONMember(key: "apns-priority", value: .string("5"))]))),
                JSONMember(key: "payload", value: .object(payload)),
            ]))))
        } else if let apns = n.value("apns") {
            message.members.append(JSONMember(key: "apns", value: apns))
        }
        for key in ["webpush", "fcm_options"] { if let v = n.value(key) { message.members.append(JSONMember(key: key, value: v)) } }
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

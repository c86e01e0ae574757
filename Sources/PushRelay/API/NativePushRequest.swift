import Foundation
import PushCore
import PushSend

/// `POST /v1/apps/{app}/pushes`: one payload (APNs and/or FCM) and many targets (docs/relay.md
/// "Native API"). Parsing checks everything a worker would otherwise find out too late: every
/// error names the field by JSON pointer, and the payloads go through the rule catalog, so a
/// bad request queues nothing.
struct NativePushRequest {
    var content: RelayPushContent
    var targets: [PushTarget]
    /// The catalog's warnings (the push is accepted; they are returned with the 202).
    var warnings: [ValidationFinding]

    static let fields: Set<String> = ["apns", "fcm", "targets", "apns_tokens", "fcm_tokens"]

    static func parse(_ body: [UInt8], app: RelayApp, limits: RelayConfig.Limits) throws(APIError) -> NativePushRequest {
        let document: JSONDocument
        do {
            document = try JSONDocument.parse(body)
        } catch {
            throw APIError(400, "invalid_json", "the body is not JSON: \(error)", fix: "send a JSON object; docs/relay.md shows one")
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

    private static func parse(_ root: JSONValue, app: RelayApp, limits: RelayConfig.Limits) throws -> NativePushRequest {
        let o = try ObjectReader(root, at: .root, what: "a JSON object")
        try o.rejectUnknown(fields)
        var targets: [PushTarget] = []
        if let list = o.value("targets") {
            guard case .array(let array) = list else {
                throw FieldError(JSONPointer.root / "targets", "must be an array, got \(list.typeName)",
                                 fix: "write [{\"apns\": \"<hex token>\"}, {\"fcm\": \"<token>\"}, {\"topic\": \"news\"}]")
            }
            guard array.count <= limits.maxTargets else { throw tooMany(array.count, limits) }
            for (i, element) in array.elements.enumerated() {
                targets.append(try target(element, at: JSONPointer.root / "targets" / i))
            }
        }
        for token in try o.stringArray("apns_tokens", example: "<64 hex characters>") ?? [] {
            targets.append(PushTarget(kind: .apnsToken, value: token))
        }
        for token in try o.stringArray("fcm_tokens", example: "<FCM registration token>") ?? [] {
            targets.append(PushTarget(kind: .fcmToken, value: token))
        }
        guard !targets.isEmpty else {
            throw FieldError(JSONPointer.root / "targets", "no targets", fix: "add \"targets\", \"apns_tokens\" or \"fcm_tokens\" with at least one entry")
        }
        guard targets.count <= limits.maxTargets else { throw tooMany(targets.count, limits) }

        var content = RelayPushContent()
        var warnings: [ValidationFinding] = []
        let hasAPNsTargets = targets.contains { $0.kind == .apnsToken }
        let hasFCMTargets = targets.contains { $0.kind != .apnsToken }
        if let apns = try o.object("apns") {
            guard let config = app.apns else {
                throw FieldError(JSONPointer.root / "apns", "app '\(app.name)' has no APNs credentials", fix: "add \"apns\" to the app in relay.json, or send FCM only")
            }
            let (part, found) = try apnsContent(apns, config: config)
            content.apns = part
            warnings += found
        }
        if let fcm = try o.object("fcm") {
            guard app.fcm != nil else {
                throw FieldError(JSONPointer.root / "fcm", "app '\(app.name)' has no FCM credentials", fix: "add \"fcm\" to the app in relay.json, or send APNs only")
            }
            let firstTarget = targets.first { $0.kind != .apnsToken }
            let (part, found) = try fcmContent(fcm, sampleTarget: firstTarget)
            content.fcm = part
            warnings += found
        }
        if hasAPNsTargets, content.apns == nil {
            throw FieldError(JSONPointer.root / "apns", "APNs targets given but no \"apns\" payload", fix: "add \"apns\": {\"payload\": {\"aps\": {…}}}")
        }
        if hasFCMTargets, content.fcm == nil {
            throw FieldError(JSONPointer.root / "fcm", "FCM targets given but no \"fcm\" message", fix: "add \"fcm\": {\"message\": {\"notification\": {…}}}")
        }
        try checkTokens(targets, o: o)
        return NativePushRequest(content: content, targets: targets, warnings: warnings)
    }

    private static func tooMany(_ count: Int, _ limits: RelayConfig.Limits) -> FieldError {
        FieldError(JSONPointer.root / "targets", "\(count) targets is more than the limit of \(limits.maxTargets) per request",
                   fix: "split the targets over several requests (limits.max_targets in relay.json)")
    }

    private static func target(_ value: JSONValue, at pointer: JSONPointer) throws -> PushTarget {
        let t = try ObjectReader(value, at: pointer, what: "an object like {\"apns\": \"<token>\"}")
        try t.rejectUnknown(["apns", "fcm", "topic", "condition", "environment"])
        let kinds: [(String, PushTarget.Kind)] = [("apns", .apnsToken), ("fcm", .fcmToken), ("topic", .fcmTopic), ("condition", .fcmCondition)]
        let present = kinds.filter { t.has($0.0) }
        guard present.count == 1, let (key, kind) = present.first else {
            throw FieldError(pointer, present.isEmpty ? "names no target" : "names more than one target",
                             fix: "write exactly one of \"apns\", \"fcm\", \"topic\", \"condition\" per entry")
        }
        let value = try t.requiredString(key, example: "…")
        let environment = try t.oneOf("environment", APNsEnvironment.self)
        if environment != nil, kind != .apnsToken {
            throw FieldError(pointer / "environment", "only APNs targets have an environment", fix: "remove it")
        }
        return PushTarget(kind: kind, value: value, environment: environment)
    }

    /// Token shapes, checked like `pushlab send` does before sending (an FCM token in an APNs
    /// list is the classic mix-up).
    private static func checkTokens(_ targets: [PushTarget], o: ObjectReader) throws {
        let explicit = (o.value("targets")?.arrayValue?.count) ?? 0
        let apnsListCount = (o.value("apns_tokens")?.arrayValue?.count) ?? 0
        for (i, target) in targets.enumerated() {
            // Built only for a target with a problem: most requests have none.
            func pointer() -> JSONPointer {
                if i < explicit {
                    return JSONPointer.root / "targets" / i / (target.kind == .apnsToken ? "apns" : target.kind == .fcmToken ? "fcm" : target.kind.rawValue)
                } else if i < explicit + apnsListCount {
                    return JSONPointer.root / "apns_tokens" / (i - explicit)
                }
                return JSONPointer.root / "fcm_tokens" / (i - explicit - apnsListCount)
            }
            switch target.kind {
            case .apnsToken:
                if let problem = DeviceToken.problem(target.value, for: .apns) { throw FieldError(pointer(), problem.message, fix: problem.fix) }
            case .fcmToken:
                if let problem = DeviceToken.problem(target.value, for: .fcm) { throw FieldError(pointer(), problem.message, fix: problem.fix) }
            case .fcmTopic:
                if let problem = FCMTargetCheck.topicProblem(target.value) { throw FieldError(pointer(), problem, fix: "use letters, digits and - _ . ~ % only, e.g. news") }
            case .fcmCondition:
                if target.value.trimmingCharacters(in: .whitespaces).isEmpty {
                    throw FieldError(pointer(), "the condition is empty", fix: "e.g. \"'news' in topics && 'ios' in topics\"")
                }
            }
        }
    }

    private static func apnsContent(_ a: ObjectReader, config: RelayApp.APNs) throws -> (RelayPushContent.APNs, [ValidationFinding]) {
        try a.rejectUnknown(["payload", "push_type", "priority", "expiration", "collapse_id", "topic"])
        guard let payload = a.value("payload") else {
            throw FieldError(a.pointer / "payload", "is required", fix: "add \"payload\": {\"aps\": {\"alert\": {\"title\": \"Hi\"}}}")
        }
        let pushType = try a.oneOf("push_type", APNsPushType.self) ?? APNsPushType.inferred(from: payload)
        let priority = try a.int("priority", range: 1...10)
        let expiration = try a.int("expiration", range: 0...Int(Int32.max))
        let collapseID = try a.string("collapse_id", example: "order-42")
        // A .p8 key needs apns-topic: without one, the app's bundle id with the push type's suffix.
        let topic = try a.string("topic", example: config.bundleID) ?? pushType.topic(forBundleID: config.bundleID)
        let bytes = payload.minifiedBytes()
        let context = APNsRequest(pushType: pushType.rawValue, priority: priority.map(String.init), topic: topic,
                                         expiration: expiration.map(String.init), collapseID: collapseID)
        let report = Validator(options: ValidationOptions(apns: context)).validate(bytes: bytes, as: .apns)
        if report.hasErrors {
            throw APIError(400, "invalid_payload", field: (a.pointer / "payload").description,
                           "the APNs payload breaks \(report.errors.count) rule\(report.errors.count == 1 ? "" : "s") of the catalog (the same as pushlab validate)",
                           fix: report.errors.first?.fix ?? "see findings", findings: report.errors)
        }
        return (RelayPushContent.APNs(payload: String(decoding: bytes, as: UTF8.self), pushType: pushType, priority: priority,
                                      expiration: expiration, collapseID: collapseID, topic: topic), report.warnings)
    }

    private static func fcmContent(_ f: ObjectReader, sampleTarget: PushTarget?) throws -> (RelayPushContent.FCM, [ValidationFinding]) {
        try f.rejectUnknown(["message"])
        guard let message = try f.object("message") else {
            throw FieldError(f.pointer / "message", "is required", fix: "add \"message\": {\"notification\": {\"title\": \"Hi\"}}")
        }
        for key in ["token", "topic", "condition"] where message.has(key) {
            throw FieldError(message.pointer / key, "the target goes in \"targets\", not in the message", fix: "move it to \"targets\"")
        }
        // Validated as the request FCM will get for the first target.
        var withTarget = message.object
        if let sampleTarget {
            let key = sampleTarget.kind == .fcmToken ? "token" : sampleTarget.kind == .fcmTopic ? "topic" : "condition"
            withTarget.members.append(JSONMember(key: key, value: .string(sampleTarget.value)))
        }
        let request = JSONValue.object(JSONObject([JSONMember(key: "message", value: .object(withTarget))]))
        let report = Validator().validate(request, as: .fcm)
        if report.hasErrors {
            throw APIError(400, "invalid_payload", field: (f.pointer / "message").description,
                           "the FCM message breaks \(report.errors.count) rule\(report.errors.count == 1 ? "" : "s") of the catalog (the same as pushlab validate, pointers from {\"message\": …})",
                           fix: report.errors.first?.fix ?? "see findings", findings: report.errors)
        }
        return (RelayPushContent.FCM(message: JSONValue.object(message.object).minifiedString), report.warnings)
    }
}

/// FCM topic names (docs/specs/fcm.md: `^(/topics/)?[a-zA-Z0-9-_.~%]+$`), via PushSend's check.
enum FCMTargetCheck {
    static func topicProblem(_ topic: String) -> String? {
        FCMTarget.topic(topic).problem
    }
}

import PushCore

/// The Go type of every key of gorush's `PushNotification` (notify/notification.go, v1.22.0;
/// docs/specs/relay.md §2). gorush decodes the whole body with Go's encoding/json before it
/// looks at any value, so one value of the wrong type anywhere — on any platform — refuses the
/// request with `Missing notifications field.` (§3). The relay checks the same types first,
/// for every notification whatever its platform, and names the field.
enum GorushFieldTypes {
    enum Kind {
        case string, stringArray, int, bool, number, object, any
        /// gorush's `Alert` struct: an object whose members have their own types.
        case alert
        /// firebase-admin's `messaging.Notification`: title, body, image strings.
        case fcmNotification

        var expected: String {
            switch self {
            case .string: return "a string"
            case .stringArray: return "an array of strings"
            case .int: return "a whole number"
            case .bool: return "true or false"
            case .number: return "a number"
            case .object, .alert, .fcmNotification: return "an object"
            case .any: return "any value"
            }
        }
    }

    static let notification: [String: Kind] = [
        "notif_id": .string, "to": .string, "topic": .string, "tokens": .stringArray, "platform": .int, "message": .string,
        "title": .string, "image": .string, "priority": .string, "content_available": .bool, "mutable_content": .bool,
        "sound": .any, "data": .object, "retry": .int,
        "notification": .fcmNotification, "android": .object, "webpush": .object, "apns": .object, "fcm_options": .object,
        "condition": .string,
        "app_id": .string, "app_secret": .string, "huawei_notification": .object, "huawei_data": .string,
        "huawei_collapse_key": .int, "huawei_ttl": .string, "bi_tag": .string, "fast_app_target": .int,
        "expiration": .int, "apns_id": .string, "collapse_id": .string, "push_type": .string, "badge": .int,
        "category": .string, "thread-id": .string, "url-args": .stringArray, "alert": .alert,
        "production": .bool, "development": .bool, "name": .string, "volume": .number, "interruption_level": .string,
        "content-state": .object, "stale-date": .int, "dismissal-date": .int, "event": .string, "timestamp": .int,
        "attributes-type": .string, "attributes": .object, "relevance-score": .number,
    ]

    static let alert: [String: Kind] = [
        "action": .string, "action-loc-key": .string, "body": .string, "launch-image": .string, "loc-args": .stringArray,
        "loc-key": .string, "title": .string, "subtitle": .string, "title-loc-args": .stringArray, "title-loc-key": .string,
        "summary-arg": .string, "summary-arg-count": .int,
    ]

    static let fcmNotification: [String: Kind] = ["title": .string, "body": .string, "image": .string]

    /// Throws for the first member of `object` (already case-folded) whose value Go could not
    /// decode into its field. `null` decodes into anything (the field keeps its zero value);
    /// unknown keys are ignored, as Go does.
    static func check(_ object: JSONObject, at pointer: JSONPointer, types: [String: Kind] = notification) throws(FieldError) {
        for member in object.members {
            guard let kind = types[member.key.lowercased()], !member.value.isNull else { continue }
            try check(member.value, kind, at: pointer / member.key)
        }
    }

    private static func check(_ value: JSONValue, _ kind: Kind, at pointer: JSONPointer) throws(FieldError) {
        var ok: Bool
        switch (kind, value) {
        case (.any, _): ok = true
        case (.string, .string), (.bool, .bool), (.number, .number): ok = true
        case (.int, .number(let n)): ok = n.intValue != nil
        case (.stringArray, .array(let a)):
            for (i, element) in a.elements.enumerated() where !element.isNull {
                guard case .string = element else {
                    throw FieldError(pointer / i, "must be a string, got \(element.typeName) (gorush refuses the whole request)",
                                     fix: "write each entry as a string")
                }
            }
            ok = true
        case (.object, .object): ok = true
        case (.alert, .object(let o)):
            try check(o, at: pointer, types: alert)
            ok = true
        case (.fcmNotification, .object(let o)):
            try check(o, at: pointer, types: fcmNotification)
            ok = true
        default: ok = false
        }
        guard ok else {
            throw FieldError(pointer, "must be \(kind.expected), got \(value.describedForMessage) (gorush refuses the whole request, on every platform)",
                             fix: fix(kind))
        }
    }

    private static func fix(_ kind: Kind) -> String {
        switch kind {
        case .bool: return "write true or false (not 1 or \"true\")"
        case .int: return "write a whole number without quotes or a fraction"
        case .string: return "write it as a string in quotes"
        case .stringArray: return "write an array of strings, e.g. [\"…\"]"
        case .number: return "write a number without quotes"
        default: return "write a JSON object, e.g. {}"
        }
    }
}

import PushCore

/// Why the modelled Retainza ingest API refused a request (docs/specs/retainza.md §9): 401/403
/// for the key, 400 for the body, naming the field.
public enum RetainzaIngestRejection: Error, Sendable, Equatable {
    case missingKey
    case secretKey
    case notAPublicKey
    case unknownKey
    case malformedJSON(String)
    case missingField(String, expected: String)
    case wrongType(String, expected: String)
    case nestedAttribute(String)
    case badValue(String, allowed: [String])

    public var status: Int {
        switch self {
        case .missingKey, .notAPublicKey, .unknownKey: return 401
        case .secretKey: return 403
        default: return 400
        }
    }

    public var code: String {
        switch self {
        case .missingKey: return "missing_key"
        case .secretKey: return "secret_key"
        case .notAPublicKey: return "not_a_public_key"
        case .unknownKey: return "unknown_key"
        case .malformedJSON: return "malformed_json"
        case .missingField: return "missing_field"
        case .wrongType: return "wrong_type"
        case .nestedAttribute: return "nested_attribute"
        case .badValue: return "bad_value"
        }
    }

    public var field: String? {
        switch self {
        case .missingKey, .secretKey, .notAPublicKey, .unknownKey: return "authorization"
        case .malformedJSON: return nil
        case .missingField(let f, _), .wrongType(let f, _), .nestedAttribute(let f), .badValue(let f, _): return f
        }
    }

    public var reason: String {
        switch self {
        case .missingKey: return "no 'Authorization: Bearer pk_…' header"
        case .secretKey: return "a secret (sk_) key is never accepted from a device"
        case .notAPublicKey: return "the key does not start with pk_"
        case .unknownKey: return "this collector does not know the key"
        case .malformedJSON(let d): return "the body is not a JSON object (\(d))"
        case .missingField(let f, let e): return "\(f) is missing (expected \(e))"
        case .wrongType(let f, let e): return "\(f) must be \(e)"
        case .nestedAttribute(let f): return "\(f) is nested; attribute values are strings, numbers, booleans or null"
        case .badValue(let f, let allowed): return "\(f) must be one of: \(allowed.joined(separator: ", "))"
        }
    }

    public var fix: String {
        switch self {
        case .missingKey, .notAPublicKey: return "send the app's public key as 'Authorization: Bearer pk_test_…' (or pk_live_…)"
        case .secretKey: return "use the pk_ key: sk_ keys reach the campaign and send APIs and never belong in an app"
        case .unknownKey: return "use a key this collector was given, or run it without keys to accept any pk_ key"
        default: return "see docs/specs/retainza.md §9 for the bodies (pushlab's model of the ingest API)"
        }
    }

    public var responseBody: String {
        var o = JSONObject([JSONMember(key: "error", value: .string(code)), JSONMember(key: "reason", value: .string(reason))])
        if let field { o.members.append(JSONMember(key: "field", value: .string(field))) }
        o.members.append(JSONMember(key: "fix", value: .string(fix)))
        return JSONValue.object(o).minifiedString
    }
}

import Foundation
import PushCore

/// Why the collector refused a request. One case per reason; each maps to one status
/// (401 for credentials, 400 for the body), names the JSON pointer when there is one, and
/// says how to fix it. The response body is `{"error": code, "reason": …, "pointer": …, "fix": …}`.
public enum MetricRejection: Error, Sendable, Equatable, CustomStringConvertible {
    // 401 — credentials (docs/specs/device-side.md §3: Basic "<cdp api key>:" or "<site id>:<api key>").
    case missingAuthorization(route: CIOMetricRoute)
    case malformedAuthorization(detail: String)
    case unknownCredentials(route: CIOMetricRoute)
    // 400 — body.
    case emptyBody
    case malformedJSON(detail: String)
    case notAnObject(pointer: String)
    case missingField(pointer: String, expected: String)
    case wrongType(pointer: String, expected: String)
    case unknownEvent(pointer: String, value: String, allowed: [String])
    case unknownMetric(pointer: String, value: String)
    case malformedDeliveryID(pointer: String, value: String)
    case malformedTimestamp(pointer: String, value: String, expected: String)
    case emptyBatch

    public var status: Int {
        switch self {
        case .missingAuthorization, .malformedAuthorization, .unknownCredentials: return 401
        default: return 400
        }
    }

    /// A stable machine-readable code.
    public var code: String {
        switch self {
        case .missingAuthorization: return "missing_authorization"
        case .malformedAuthorization: return "malformed_authorization"
        case .unknownCredentials: return "unknown_credentials"
        case .emptyBody: return "empty_body"
        case .malformedJSON: return "malformed_json"
        case .notAnObject: return "not_an_object"
        case .missingField: return "missing_field"
        case .wrongType: return "wrong_type"
        case .unknownEvent: return "unknown_event"
        case .unknownMetric: return "unknown_metric"
        case .malformedDeliveryID: return "malformed_delivery_id"
        case .malformedTimestamp: return "malformed_timestamp"
        case .emptyBatch: return "empty_batch"
        }
    }

    public var pointer: String? {
        switch self {
        case .notAnObject(let p), .missingField(let p, _), .wrongType(let p, _), .unknownEvent(let p, _, _),
             .unknownMetric(let p, _), .malformedDeliveryID(let p, _), .malformedTimestamp(let p, _, _):
            return p
        case .emptyBatch: return "/batch"
        default: return nil
        }
    }

    public var reason: String {
        switch self {
        case .missingAuthorization(let route): return "no Authorization header on \(route.path)"
        case .malformedAuthorization(let detail): return "Authorization is not valid Basic credentials: \(detail)"
        case .unknownCredentials(let route):
            return route == .legacyEvents ? "unknown site id / api key" : "unknown CDP API key"
        case .emptyBody: return "the request body is empty"
        case .malformedJSON(let detail): return "the body is not valid JSON: \(detail)"
        case .notAnObject(let p): return "\(p.isEmpty ? "the body" : p) must be a JSON object"
        case .missingField(let p, let expected): return "missing field \(p) (\(expected))"
        case .wrongType(let p, let expected): return "\(p) must be \(expected)"
        case .unknownEvent(let p, let value, _): return "unknown event '\(value)' at \(p)"
        case .unknownMetric(let p, let value): return "unknown metric '\(value)' at \(p)"
        case .malformedDeliveryID(let p, let value): return "malformed delivery id '\(value)' at \(p)"
        case .malformedTimestamp(let p, let value, _): return "malformed timestamp '\(value)' at \(p)"
        case .emptyBatch: return "the batch is empty"
        }
    }

    public var fix: String {
        switch self {
        case .missingAuthorization(let route), .unknownCredentials(let route):
            return route == .legacyEvents
                ? "send Authorization: Basic base64(\"<site id>:<api key>\") with a pair given to --legacy-key"
                : "send Authorization: Basic base64(\"<cdp api key>:\") with a key given to --cdp-key"
        case .malformedAuthorization: return "use the Basic scheme with base64 of \"user:password\""
        case .emptyBody, .malformedJSON, .notAnObject: return "send a JSON object as in docs/metrics.md"
        case .missingField, .wrongType: return "see the request shapes in docs/metrics.md"
        case .unknownEvent(_, _, let allowed): return "use one of: " + allowed.map { "\"\($0)\"" }.joined(separator: ", ")
        case .unknownMetric: return "use one of: " + CIOMetric.allCases.map(\.rawValue).joined(separator: ", ")
        case .malformedDeliveryID: return "use the push's CIO-Delivery-ID: 1–200 characters of A–Z a–z 0–9 - _ = + / . : ~"
        case .malformedTimestamp(_, _, let expected): return "use \(expected)"
        case .emptyBatch: return "send at least one event in \"batch\""
        }
    }

    public var description: String { "\(status) \(code): \(reason)" }

    /// The JSON body of the error response.
    public var responseBody: String {
        var object: [String: String] = ["error": code, "reason": reason, "fix": fix]
        if let pointer { object["pointer"] = pointer }
        return jsonObjectText(object)
    }
}

/// A flat string→string JSON object with sorted keys.
func jsonObjectText(_ object: [String: String]) -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return String(decoding: (try? encoder.encode(object)) ?? Data("{}".utf8), as: UTF8.self)
}

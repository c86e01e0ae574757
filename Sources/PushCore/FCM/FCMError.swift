import Foundation

/// The FcmError `errorCode` of an FCM HTTP v1 error (docs/specs/fcm.md "Errors"). Unknown codes are
/// kept verbatim in `.other`.
public enum FCMErrorCode: Sendable, Hashable, CustomStringConvertible {
    case invalidArgument, thirdPartyAuthError, senderIdMismatch, unregistered, quotaExceeded, `internal`, unavailable
    case other(String)

    public static let allKnown: [FCMErrorCode] = [
        .invalidArgument, .thirdPartyAuthError, .senderIdMismatch, .unregistered, .quotaExceeded, .internal, .unavailable,
    ]

    public init(rawValue: String) {
        self = FCMErrorCode.allKnown.first { $0.rawValue == rawValue } ?? .other(rawValue)
    }

    public var rawValue: String {
        switch self {
        case .invalidArgument: return "INVALID_ARGUMENT"
        case .thirdPartyAuthError: return "THIRD_PARTY_AUTH_ERROR"
        case .senderIdMismatch: return "SENDER_ID_MISMATCH"
        case .unregistered: return "UNREGISTERED"
        case .quotaExceeded: return "QUOTA_EXCEEDED"
        case .internal: return "INTERNAL"
        case .unavailable: return "UNAVAILABLE"
        case .other(let raw): return raw
        }
    }

    public var description: String { rawValue }

    /// The HTTP status FCM answers with (docs/specs/fcm.md table); nil for `.other`.
    public var httpStatus: Int? {
        switch self {
        case .invalidArgument: return 400
        case .thirdPartyAuthError: return 401
        case .senderIdMismatch: return 403
        case .unregistered: return 404
        case .quotaExceeded: return 429
        case .internal: return 500
        case .unavailable: return 503
        case .other: return nil
        }
    }

    /// The canonical Google RPC `status` sent beside this code.
    public var rpcStatus: String? {
        switch self {
        case .invalidArgument: return "INVALID_ARGUMENT"
        case .thirdPartyAuthError: return "UNAUTHENTICATED"
        case .senderIdMismatch: return "PERMISSION_DENIED"
        case .unregistered: return "NOT_FOUND"
        case .quotaExceeded: return "RESOURCE_EXHAUSTED"
        case .internal: return "INTERNAL"
        case .unavailable: return "UNAVAILABLE"
        case .other: return nil
        }
    }

    /// docs/specs/fcm.md: retry 429/500/503; INVALID_ARGUMENT, UNREGISTERED, SENDER_ID_MISMATCH,
    /// THIRD_PARTY_AUTH_ERROR never.
    public var retryability: Retryability {
        switch self {
        case .quotaExceeded: return .afterDelay
        case .internal, .unavailable: return .withBackoff
        case .invalidArgument, .thirdPartyAuthError, .senderIdMismatch, .unregistered, .other: return .never
        }
    }

    /// The registration token is dead: remove it from the audience.
    public var prunesToken: Bool { self == .unregistered }

    public var fix: String {
        switch self {
        case .invalidArgument: return "The message or the registration token is malformed; the field violations say which field. Fix it; it is not retried."
        case .thirdPartyAuthError: return "FCM could not use the project's APNs key/certificate (or web-push credential); upload a valid APNs auth key in the Firebase console under Cloud Messaging."
        case .senderIdMismatch: return "The token was registered with another Firebase project; send with that project's service account (--service-account/--project)."
        case .unregistered: return "The token is no longer valid (app uninstalled or token rotated); stop sending to it (see --prune-file)."
        case .quotaExceeded: return "A sending quota was exceeded; slow down. Retried after Retry-After."
        case .internal: return "FCM failed internally; retried with backoff."
        case .unavailable: return "FCM is overloaded or unavailable; retried with backoff, honouring Retry-After."
        case .other(let raw): return "FCM answered errorCode '\(raw)', which pushlab's table does not list; see Firebase's error-code documentation."
        }
    }
}

/// One `google.rpc.BadRequest` field violation: which field of the request was wrong and why.
public struct FCMFieldViolation: Sendable, Hashable, Codable {
    public var field: String
    public var description: String
    public init(field: String, description: String) {
        self.field = field
        self.description = description
    }
}

/// One `google.rpc.QuotaFailure` violation.
public struct FCMQuotaViolation: Sendable, Hashable, Codable {
    public var subject: String?
    public var description: String?
    public init(subject: String? = nil, description: String? = nil) {
        self.subject = subject
        self.description = description
    }
}

/// An FCM HTTP v1 error in the Google RPC shape (docs/specs/fcm.md "Errors"):
/// `{"error": {"code", "message", "status", "details": [FcmError, BadRequest, QuotaFailure …]}}`.
/// The sender parses it, the gateway emulator renders it.
public struct FCMError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The HTTP status of the response (also `error.code`).
    public var httpStatus: Int
    /// Google RPC status, e.g. `INVALID_ARGUMENT`, `NOT_FOUND`.
    public var status: String
    public var message: String
    /// The FcmError detail's code; nil when the response carried none (e.g. a bad access
    /// token answered 401 UNAUTHENTICATED by Google's front end).
    public var errorCode: FCMErrorCode?
    public var fieldViolations: [FCMFieldViolation]
    public var quotaViolations: [FCMQuotaViolation]

    public init(httpStatus: Int, status: String, message: String, errorCode: FCMErrorCode? = nil,
                fieldViolations: [FCMFieldViolation] = [], quotaViolations: [FCMQuotaViolation] = []) {
        self.httpStatus = httpStatus
        self.status = status
        self.message = message
        self.errorCode = errorCode
        self.fieldViolations = fieldViolations
        self.quotaViolations = quotaViolations
    }

    /// An error for `code` with its canonical HTTP status and RPC status.
    public init(_ code: FCMErrorCode, message: String, fieldViolations: [FCMFieldViolation] = []) {
        self.init(httpStatus: code.httpStatus ?? 500, status: code.rpcStatus ?? "UNKNOWN", message: message,
                  errorCode: code, fieldViolations: fieldViolations)
    }

    /// Parses an error response. A body that is not the Google RPC shape still yields an
    /// error that keeps the HTTP status and the body's text as its message.
    public init(httpStatus: Int, body: [UInt8]) {
        guard let envelope = try? JSONDecoder().decode(Envelope.self, from: Data(body)) else {
            let text = String(decoding: body.prefix(512), as: UTF8.self)
            self.init(httpStatus: httpStatus, status: FCMError.statusName(forHTTP: httpStatus),
                      message: text.isEmpty ? "HTTP \(httpStatus) with no error body" : text)
            return
        }
        let e = envelope.error
        var code: FCMErrorCode?
        var fields: [FCMFieldViolation] = []
        var quota: [FCMQuotaViolation] = []
        for detail in e.details ?? [] {
            switch detail.type ?? "" {
            case FCMError.fcmErrorType:
                if let c = detail.errorCode { code = FCMErrorCode(rawValue: c) }
            case FCMError.badRequestType:
                fields += detail.fieldViolations ?? []
            case FCMError.quotaFailureType:
                quota += detail.violations ?? []
            default:
                continue
            }
        }
        self.init(httpStatus: httpStatus, status: e.status ?? FCMError.statusName(forHTTP: httpStatus),
                  message: e.message ?? "", errorCode: code, fieldViolations: fields, quotaViolations: quota)
    }

    /// The response body the gateway emulator sends: `{"error":{"code","details","message",
    /// "status"}}`, keys sorted, details in the order FcmError, BadRequest, QuotaFailure, absent
    /// optional fields left out, strings escaped by `JSONValue.appendQuoted`. Written straight
    /// into bytes: the same bytes `JSONEncoder` with `.sortedKeys, .withoutEscapingSlashes` gave
    /// for the `Envelope` (FCMErrorJSONTests compares the two), at a fraction of the cost (the
    /// encoder was 5% of Fuzz/FuzzFCMOAuth's time).
    public var json: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(128 + message.utf8.count)
        out.append(contentsOf: #"{"error":{"code":"#.utf8)
        out.append(contentsOf: String(httpStatus).utf8)
        out.append(contentsOf: #","details":["#.utf8)
        var firstDetail = true
        func startDetail(_ type: String) {
            if !firstDetail { out.append(UInt8(ascii: ",")) }
            firstDetail = false
            out.append(contentsOf: #"{"@type":"#.utf8)
            JSONValue.appendQuoted(type, to: &out)
        }
        func member(_ key: String, _ value: String, first: Bool = false) {
            if !first { out.append(UInt8(ascii: ",")) }
            JSONValue.appendQuoted(key, to: &out)
            out.append(UInt8(ascii: ":"))
            JSONValue.appendQuoted(value, to: &out)
        }
        if let errorCode {
            startDetail(FCMError.fcmErrorType)
            member("errorCode", errorCode.rawValue)
            out.append(UInt8(ascii: "}"))
        }
        if !fieldViolations.isEmpty {
            startDetail(FCMError.badRequestType)
            out.append(contentsOf: #","fieldViolations":["#.utf8)
            for (k, v) in fieldViolations.enumerated() {
                out.append(contentsOf: (k == 0 ? "{" : ",{").utf8)
                member("description", v.description, first: true)
                member("field", v.field)
                out.append(UInt8(ascii: "}"))
            }
            out.append(contentsOf: "]}".utf8)
        }
        if !quotaViolations.isEmpty {
            startDetail(FCMError.quotaFailureType)
            out.append(contentsOf: #","violations":["#.utf8)
            for (k, v) in quotaViolations.enumerated() {
                out.append(contentsOf: (k == 0 ? "{" : ",{").utf8)
                var first = true
                if let d = v.description { member("description", d, first: first); first = false }
                if let s = v.subject { member("subject", s, first: first) }
                out.append(UInt8(ascii: "}"))
            }
            out.append(contentsOf: "]}".utf8)
        }
        out.append(UInt8(ascii: "]"))
        member("message", message)
        member("status", status)
        out.append(contentsOf: "}}".utf8)
        return out
    }

    /// What a sender may do next. The FcmError code decides; without one the HTTP status does
    /// (401 without a code is an expired/invalid access token: renew it once).
    public var retryability: Retryability {
        if let errorCode, errorCode.isKnown { return errorCode.retryability }
        switch httpStatus {
        case 401 where errorCode == nil: return .renewCredentialOnce
        case 429: return .afterDelay
        case 500...599: return .withBackoff
        default: return .never
        }
    }

    public var prunesToken: Bool { errorCode?.prunesToken ?? false }

    /// The most specific short name: the errorCode, else the RPC status.
    public var reasonName: String { errorCode?.rawValue ?? status }

    public var fix: String {
        if let errorCode { return errorCode.fix }
        if httpStatus == 401 { return "The access token was refused; check the service account (--service-account) and that it may send for the project." }
        if httpStatus == 404 { return "The project or URL was not found; check --project and --url." }
        return "FCM answered HTTP \(httpStatus) \(status); see the message."
    }

    public var description: String {
        var out = "HTTP \(httpStatus) \(status)"
        if let errorCode { out += " \(errorCode.rawValue)" }
        if !message.isEmpty { out += ": \(message)" }
        for v in fieldViolations { out += "\n  \(v.field): \(v.description)" }
        return out
    }

    static func statusName(forHTTP status: Int) -> String {
        switch status {
        case 400: return "INVALID_ARGUMENT"
        case 401: return "UNAUTHENTICATED"
        case 403: return "PERMISSION_DENIED"
        case 404: return "NOT_FOUND"
        case 429: return "RESOURCE_EXHAUSTED"
        case 500: return "INTERNAL"
        case 503: return "UNAVAILABLE"
        default: return "UNKNOWN"
        }
    }

    public static let fcmErrorType = "type.googleapis.com/google.firebase.fcm.v1.FcmError"
    public static let badRequestType = "type.googleapis.com/google.rpc.BadRequest"
    public static let quotaFailureType = "type.googleapis.com/google.rpc.QuotaFailure"

    // The wire shape.
    private struct Envelope: Codable { var error: Body }
    private struct Body: Codable {
        var code: Int?
        var message: String?
        var status: String?
        var details: [Detail]?
    }
    private struct Detail: Codable {
        var type: String?
        var errorCode: String?
        var fieldViolations: [FCMFieldViolation]?
        var violations: [FCMQuotaViolation]?
        enum CodingKeys: String, CodingKey {
            case type = "@type", errorCode, fieldViolations, violations
        }
        init(type: String?, errorCode: String? = nil, fieldViolations: [FCMFieldViolation]? = nil,
             violations: [FCMQuotaViolation]? = nil) {
            self.type = type
            self.errorCode = errorCode
            self.fieldViolations = fieldViolations
            self.violations = violations
        }
    }
}

extension FCMErrorCode {
    public var isKnown: Bool { if case .other = self { return false } else { return true } }
}

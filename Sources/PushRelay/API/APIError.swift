import Foundation
import PushCore
import PushHTTP
import PushRedis

/// An API refusal: the status and a JSON body naming the field (a JSON pointer into the
/// request body, a header or a path parameter), what is wrong and how to fix it.
public struct APIError: Error, Sendable {
    public var status: Int
    /// Machine-readable kind: `invalid_json`, `invalid_field`, `invalid_payload`, `unauthorized`…
    public var code: String
    /// `/targets/3/apns`, `header Idempotency-Key`, `path app`; nil when no one field is to blame.
    public var field: String?
    public var message: String
    public var fix: String
    /// The catalog's findings, as `pushlab validate --json` prints them (pointers inside the payload).
    public var findings: [ValidationFinding]
    public var headers: HTTPHeaders
    /// On the gorush API: gorush's own text for this refusal (router/server.go), sent as
    /// `message` so clients that match it keep working; `message` then goes out as `detail`.
    public var gorushMessage: String?

    public init(_ status: Int, _ code: String, field: String? = nil, _ message: String, fix: String,
                findings: [ValidationFinding] = [], headers: HTTPHeaders = [:]) {
        self.status = status
        self.code = code
        self.field = field
        self.message = message
        self.fix = fix
        self.findings = findings
        self.headers = headers
    }

    init(_ error: FieldError, prefix: JSONPointer = .root) {
        let pointer = JSONPointer(tokens: prefix.tokens + error.pointer.tokens)
        // The root pointer is the empty string (RFC 6901); "body" says the same to a reader.
        self.init(400, "invalid_field", field: pointer.tokens.isEmpty ? "body" : pointer.description, error.message, fix: error.fix)
    }

    static func unauthorized(_ message: String) -> APIError {
        APIError(401, "unauthorized", field: "header Authorization", message,
                 fix: "send 'Authorization: Bearer <key>' with a key from 'pushlab relay keys create'",
                 headers: ["www-authenticate": "Bearer realm=\"pushlab-relay\""])
    }

    /// 404 for an app relay.json does not define, listing the ones it does.
    static func unknownApp(_ name: String, known: [String]) -> APIError {
        APIError(404, "unknown_app", field: "path app", "no app '\(name)' in relay.json", fix: "use one of: \(known.joined(separator: ", "))")
    }

    /// The key could not be looked up (its store is unreachable): 503 with Retry-After, never
    /// 401, so a client keeps its key and retries. The answer does not name the store's address.
    static func keyLookupFailed(_ failure: APIKeyLookupFailure) -> APIError {
        switch failure.store {
        case .redis:
            var error = redisUnavailable("the relay cannot reach its Redis to check the API key (the key itself may be fine)",
                                         fix: "retry after the Retry-After seconds with the same key (and the same Idempotency-Key)")
            error.field = "header Authorization"
            return error
        case .sqlite:
            return APIError(503, "storage", field: "header Authorization",
                            "the relay cannot read its API keys (the key itself may be fine)",
                            fix: "retry after the Retry-After seconds; see the relay's log",
                            headers: ["retry-after": String(redisRetryAfterSeconds)])
        }
    }

    /// A cluster node whose Redis is down, restarting or still loading: 503 with Retry-After.
    /// The answer does not name Redis's address (the node's log does).
    static func redisUnavailable(_ message: String, fix: String) -> APIError {
        APIError(503, "redis_unavailable", message, fix: fix, headers: ["retry-after": String(redisRetryAfterSeconds)])
    }

    /// Retry-After of `redisUnavailable`: the longest wait between a node's attempts to
    /// reconnect to Redis (RedisClientOptions.maximumBackoff), so a client retrying then meets
    /// a node that has tried again.
    static var redisRetryAfterSeconds: Int { max(1, Int(RedisClientOptions().maximumBackoff.components.seconds)) }

    /// The native API's answer: `{"error":…,"field":…,"message":…,"fix":…,"findings":[…]}`.
    public var response: ServerResponse { answer(gorushShape: false) }

    /// The gorush API's answer: gorush's `code` and `message` first, then the relay's fields:
    /// `{"code":400,"message":…,"error":…,"field":…,"fix":…}`.
    var gorushResponse: ServerResponse { answer(gorushShape: true) }

    private func answer(gorushShape: Bool) -> ServerResponse {
        var body = JSONObject()
        if gorushShape {
            body.members.append(JSONMember(key: "code", value: .number(JSONNumber(status))))
            body.members.append(JSONMember(key: "message", value: .string(gorushMessage ?? message)))
        }
        body.members.append(JSONMember(key: "error", value: .string(code)))
        if let field { body.members.append(JSONMember(key: "field", value: .string(field))) }
        if let gorushMessage {
            if !gorushShape { body.members.append(JSONMember(key: "message", value: .string(gorushMessage))) }
            body.members.append(JSONMember(key: "detail", value: .string(message)))
        } else if !gorushShape {
            body.members.append(JSONMember(key: "message", value: .string(message)))
        }
        body.members.append(JSONMember(key: "fix", value: .string(fix)))
        if !findings.isEmpty {
            body.members.append(JSONMember(key: "findings", value: .array(JSONArray(findings.map(Self.findingJSON)))))
        }
        var response = ServerResponse.json(status, JSONValue.object(body).minifiedString + "\n", headers: headers)
        response.headers.set("cache-control", "no-store")
        return response
    }

    /// A finding in `pushlab validate --json`'s shape (ValidationFinding's own encoding).
    static func findingJSON(_ finding: ValidationFinding) -> JSONValue {
        guard let data = try? JSONEncoder().encode(finding), let doc = try? JSONDocument.parse(Array(data)) else { return .null }
        return doc.root
    }
}

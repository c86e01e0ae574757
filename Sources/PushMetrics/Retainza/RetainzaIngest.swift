import Foundation
import PushCore
import PushHTTP

/// The modelled Retainza ingest API on the collector (docs/specs/retainza.md §9 — pushlab's
/// model, not Retainza's wire format): `POST <prefix><route path>` for each `RetainzaRoute`,
/// the public key as the only credential, checks in order (key, then body), every request
/// recorded in `RetainzaIngestStore`.
public final class RetainzaIngest: Sendable {
    public let store: RetainzaIngestStore
    public let prefix: String
    public let routes: RetainzaRoutes
    /// Accepted public keys; empty accepts any `pk_` key (an open collector for local runs).
    public let publicKeys: Set<String>
    private let time: any TimeSource

    public init(store: RetainzaIngestStore, prefix: String = RetainzaContract.collectorPrefix, routes: RetainzaRoutes = RetainzaRoutes(),
                publicKeys: Set<String> = [], timeSource: any TimeSource = SystemTimeSource()) {
        self.store = store
        self.prefix = prefix
        self.routes = routes
        self.publicKeys = publicKeys
        self.time = timeSource
    }

    public func register(on router: inout Router) {
        for route in RetainzaRoute.allCases {
            router.add("POST", prefix + routes.path(route)) { [self] request in .now(handle(request, route: route)) }
        }
    }

    public func handle(_ request: ServerRequest, route: RetainzaRoute) -> ServerResponse {
        let now = time.now
        var record = RetainzaIngestStore.Request(receivedAt: now, route: route.rawValue, status: 200)
        do {
            try checkKey(request.headers[RetainzaContract.keyHeader])
            let body = try parse(request.body, route: route)
            record.installID = body[RetainzaBodyKey.installID]?.stringValue
            record.userID = body[RetainzaBodyKey.userID]?.stringValue
            record.event = body[RetainzaBodyKey.event]?.stringValue
            record.messageID = body[RetainzaBodyKey.messageID]?.stringValue
            record.action = body[RetainzaBodyKey.action]?.stringValue
            record.callTimestamp = body[RetainzaBodyKey.timestamp]?.stringValue
            try store.insert(record, body: request.body)
            if let token = body[RetainzaBodyKey.token]?.stringValue {
                if route == .registerPush {
                    try store.register(token: token, installID: record.installID ?? "", userID: record.userID, at: now)
                } else if route == .unregisterPush {
                    try store.unregister(token: token, at: now)
                }
            }
            return .json(200, #"{"ok":true}"#)
        } catch let rejection as RetainzaIngestRejection {
            record.status = rejection.status
            record.error = rejection.code
            try? store.insert(record, body: request.body)
            return .json(rejection.status, rejection.responseBody)
        } catch {
            return .json(503, #"{"error":"store_unavailable","reason":"could not record the request; retry"}"#)
        }
    }

    private func checkKey(_ header: String?) throws(RetainzaIngestRejection) {
        guard let header, let token = BearerAuthorization.token(in: header) else { throw .missingKey }
        let key = String(token)
        switch RetainzaContract.classify(key: key) {
        case .secret: throw .secretKey
        case .notAKey: throw .notAPublicKey
        case .test, .live, .otherPublic: break
        }
        if !publicKeys.isEmpty && !publicKeys.contains(key) { throw .unknownKey }
    }

    /// The body rules of the model, per route; every error names the field.
    func parse(_ bytes: [UInt8], route: RetainzaRoute) throws(RetainzaIngestRejection) -> JSONObject {
        let root: JSONValue
        do { root = try JSONDocument.parse(bytes).root } catch { throw .malformedJSON(error.message) }
        guard let o = root.objectValue else { throw .malformedJSON("expected a JSON object") }
        func string(_ key: String, required: Bool = true) throws(RetainzaIngestRejection) {
            guard let v = o[key] else { if required { throw .missingField("/" + key, expected: "a string") } else { return } }
            guard let s = v.stringValue, !s.isEmpty else { throw .wrongType("/" + key, expected: "a non-empty string") }
        }
        func flat(_ key: String) throws(RetainzaIngestRejection) {
            guard let v = o[key] else { throw .missingField("/" + key, expected: "an object") }
            guard let attrs = v.objectValue else { throw .wrongType("/" + key, expected: "an object") }
            for m in attrs.members {
                switch m.value {
                case .array, .object: throw .nestedAttribute("/\(key)/\(m.key)")
                default: break
                }
            }
        }
        try string(RetainzaBodyKey.installID)
        try string(RetainzaBodyKey.timestamp)
        if let t = o[RetainzaBodyKey.timestamp]?.stringValue, ISO8601Timestamp.parse(t) == nil {
            throw .wrongType("/" + RetainzaBodyKey.timestamp, expected: "an ISO 8601 UTC time such as 2026-01-01T00:00:00.000Z")
        }
        switch route {
        case .identify:
            try string(RetainzaBodyKey.userID)
            try flat(RetainzaBodyKey.attributes)
        case .attributes:
            try flat(RetainzaBodyKey.attributes)
        case .track:
            try string(RetainzaBodyKey.event)
            if o[RetainzaBodyKey.properties] != nil { try flat(RetainzaBodyKey.properties) }
        case .collection:
            try string(RetainzaBodyKey.collection)
            try string(RetainzaBodyKey.operation)
            let ops = ["add", "remove", "set"]
            if let op = o[RetainzaBodyKey.operation]?.stringValue, !ops.contains(op) { throw .badValue("/op", allowed: ops) }
            guard o[RetainzaBodyKey.items]?.arrayValue != nil else { throw .missingField("/items", expected: "an array of ids") }
        case .registerPush:
            try string(RetainzaBodyKey.userID)
            try string(RetainzaBodyKey.token)
        case .unregisterPush:
            try string(RetainzaBodyKey.token)
        case .ack:
            try string(RetainzaBodyKey.messageID)
            try string(RetainzaBodyKey.action)
            let actions = RetainzaAckAction.allCases.map(\.rawValue)
            if let a = o[RetainzaBodyKey.action]?.stringValue, !actions.contains(a) { throw .badValue("/action", allowed: actions) }
        }
        return o
    }
}

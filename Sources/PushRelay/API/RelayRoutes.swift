import Foundation
import PushAuth
import PushCore
import PushHTTP

/// The relay's HTTP API (docs/relay.md "Native API"): native routes under `/v1`, gorush's under
/// `/gorush/{app}`, plus `/healthz` and `/metrics`. Every refusal is an `APIError` (status +
/// JSON naming the field); nothing is queued unless the whole request is valid.
struct RelayRoutes: Sendable {
    let service: RelayService

    /// Longest `?wait=` a client may ask for.
    static let maxWait: Duration = .seconds(30)

    func router(accessLog: (@Sendable (String) -> Void)? = nil) -> Router {
        var router = Router()
        router.add("GET", "/healthz") { _ in .now(.json(200, #"{"status":"ok"}"#)) }
        let api = RelayAPIRoutes(service: service, shape: .native, accessLog: accessLog)
        api.add(to: &router, "GET", "/metrics", .metricsAdmin) { _, _ in await metrics() }
        api.add(to: &router, "POST", "/v1/apps/{app}/pushes", .app, createPush)
        api.add(to: &router, "GET", "/v1/pushes/{id}", .anyKey, pushStatus)
        api.add(to: &router, "GET", "/v1/apps/{app}/deliveries", .app, deliveries)
        api.add(to: &router, "GET", "/v1/apps/{app}/invalid-tokens", .app, invalidTokens)
        api.add(to: &router, "GET", "/v1/admin/config", .admin) { _, _ in configReadBack() }
        api.add(to: &router, "GET", "/v1/admin/queue", .admin) { _, _ in try await queueDepth() }
        api.add(to: &router, "GET", "/v1/cluster", .admin) { request, _ in try await cluster(request) }
        GorushRoutes(service: service).add(to: &router, api: RelayAPIRoutes(service: service, shape: .gorush, accessLog: accessLog))
        router.fallback = { request in
            .now(APIError(404, "not_found", field: "path", "no route \(request.method) \(request.path)",
                          fix: "see docs/relay.md for the routes (/v1/apps/{app}/pushes, /gorush/{app}/api/push …)").response)
        }
        return router
    }

    // MARK: - Native API

    private func createPush(_ request: ServerRequest, context: RelayRequestContext) async throws -> ServerResponse {
        try await createPush(app: try context.authorizedApp(), body: request.body, idempotencyKey: try idempotencyKey(request))
    }

    /// The native push once its caller may push for `app` (an API key, or the console's own
    /// access check): parsed and validated, durably queued, counted and logged — the one path
    /// every native push takes.
    func createPush(app: RelayApp, body: [UInt8], idempotencyKey key: String?) async throws -> ServerResponse {
        let parsed = try NativePushRequest.parse(body, app: app, limits: service.config.limits)
        let receipt = try await enqueue(app: app, content: parsed.content, targets: parsed.targets, key: key,
                                        fingerprint: Self.fingerprint(kind: "native", app: app.name, body: body))
        var members: [(String, JSONValue?)] = [
            ("id", .string(receipt.pushID.rawValue)), ("targets", RelayJSON.number(receipt.targetCount)),
            ("accepted_at", RelayJSON.time(receipt.acceptedAt)), ("status_url", .string("/v1/pushes/\(receipt.pushID)")),
        ]
        if !parsed.warnings.isEmpty { members.append(("warnings", .array(JSONArray(parsed.warnings.map(APIError.findingJSON))))) }
        var headers: HTTPHeaders = ["location": "/v1/pushes/\(receipt.pushID)"]
        if receipt.isReplay { headers.add("idempotent-replayed", "true") }
        return .json(202, RelayJSON.object(members).minifiedString + "\n", headers: headers)
    }

    /// Queues, mapping the queue's refusals to answers: full → 503 + Retry-After, a reused key → 422.
    func enqueue(app: RelayApp, content: RelayPushContent, targets: [PushTarget], key: String?, fingerprint: String) async throws -> EnqueueReceipt {
        do {
            return try await service.enqueue(app: app, content: content, targets: targets, idempotencyKey: key, fingerprint: fingerprint)
        } catch {
            switch error {
            case .full:
                throw APIError(503, "queue_full", "\(error)", fix: "retry after the Retry-After seconds", headers: ["retry-after": "5"])
            case .idempotencyConflict:
                throw APIError(422, "idempotency_key_reused", field: "header Idempotency-Key", "\(error)", fix: "send a new Idempotency-Key for a different request")
            case .closed:
                throw APIError(503, "shutting_down", "the relay is stopping", fix: "retry in a moment", headers: ["retry-after": "1"])
            case .storage where service.queue is RedisPushQueue:
                // Redis went away (or answered an error) mid-request: the script may have run.
                throw APIError.redisUnavailable("the relay lost its Redis while queuing this push; it may or may not be queued",
                                                fix: "retry after the Retry-After seconds with the same Idempotency-Key (it is then queued once)")
            case .storage:
                throw APIError(500, "storage", "\(error)", fix: "see the relay's log; nothing was queued")
            }
        }
    }

    func idempotencyKey(_ request: ServerRequest) throws -> String? {
        guard let key = request.headers["idempotency-key"] else { return nil }
        guard !key.isEmpty, key.utf8.count <= 255, key.utf8.allSatisfy({ $0 >= 0x21 && $0 <= 0x7e }) else {
            throw APIError(400, "invalid_header", field: "header Idempotency-Key", "must be 1–255 visible ASCII characters",
                           fix: "use e.g. a UUID per logical push")
        }
        return key
    }

    static func fingerprint(kind: String, app: String, body: [UInt8]) -> String {
        Digest.hex(Digest.sha256(Array("\(kind)\n\(app)\n".utf8) + body))
    }

    private func pushStatus(_ request: ServerRequest, context: RelayRequestContext) async throws -> ServerResponse {
        let id = PushID(request.pathParameters["id"] ?? "")
        let query = Query(request.query)
        let wait = try query.duration("wait", max: Self.maxWait)
        let includeResults = try query.bool("results") ?? true
        let deadline = ContinuousClock.now + wait
        var status = try await read { try await service.queue.status(of: id, includeTargets: false) }
        guard let first = status, context.scope?.allows(app: first.app) == true else {
            throw APIError(404, "unknown_push", field: "path id", "no push '\(id)' for this key", fix: "use the id a POST …/pushes answered")
        }
        // ?wait: poll the cheap counts until the push is finished or the wait is over.
        while let s = status, !s.isFinished, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(20))
            status = try await read { try await service.queue.status(of: id, includeTargets: false) }
        }
        if includeResults {
            status = try await read { try await service.queue.status(of: id, includeTargets: true) }
        }
        return .json(200, RelayJSON.pushStatus(status ?? first).minifiedString + "\n")
    }

    private func deliveries(_ request: ServerRequest, context: RelayRequestContext) async throws -> ServerResponse {
        let app = try context.authorizedApp()
        let query = Query(request.query)
        let since = try query.date("since")
        let limit = try query.int("limit", range: 1...10_000) ?? 1_000
        let token = query["token"]
        let records = try await read { try await service.queue.deliveries(app: app.name, token: token, since: since, limit: limit) }
        let body = RelayJSON.object([("app", .string(app.name)), ("deliveries", .array(JSONArray(records.map(RelayJSON.delivery))))])
        return .json(200, body.minifiedString + "\n")
    }

    private func invalidTokens(_ request: ServerRequest, context: RelayRequestContext) async throws -> ServerResponse {
        let app = try context.authorizedApp()
        let query = Query(request.query)
        let since = try query.date("since")
        let limit = try query.int("limit", range: 1...100_000) ?? 10_000
        let tokens = try await read { try await service.queue.invalidTokens(app: app.name, since: since, limit: limit) }
        let body = RelayJSON.object([("app", .string(app.name)), ("invalid_tokens", .array(JSONArray(tokens.map(RelayJSON.invalidToken))))])
        return .json(200, body.minifiedString + "\n")
    }

    // MARK: - Admin

    /// The configuration as read: file paths and SHA-256 fingerprints of the credential files,
    /// never their contents.
    private func configReadBack() -> ServerResponse {
        let config = service.config
        func file(_ path: String?) -> JSONValue? {
            guard let path else { return nil }
            let data = FileManager.default.contents(atPath: path).map { Array($0) } ?? []
            return RelayJSON.object([("path", .string(path)), ("sha256", .string(Digest.hex(Digest.sha256(data))))])
        }
        let apps: [JSONValue] = config.apps.map { app in
            let endpoints = service.senders[app.name]?.endpoints ?? [:]
            return RelayJSON.object([
                ("name", .string(app.name)),
                ("apns", app.apns.map { a in RelayJSON.object(authentication(a.authentication, app: app.name, file: file) + [
                    ("bundle_id", .string(a.bundleID)), ("environment", .string(a.environment.rawValue)), ("target", .string(a.target.rawValue)),
                    ("hosts", RelayJSON.object(endpoints.filter { $0.key.hasPrefix("apns") }.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) })),
                ]) }),
                ("fcm", app.fcm.map { f in RelayJSON.object([
                    ("service_account", file(f.serviceAccountPath)), ("project_id", RelayJSON.string(f.projectID)),
                    ("target", .string(f.target.rawValue)), ("host", RelayJSON.string(endpoints["fcm"])),
                ]) }),
                ("rate_per_minute", RelayJSON.number(app.ratePerMinute)),
                ("webhook", app.webhook.map { w in RelayJSON.object([("url", .string(w.url)), ("secret_file", file(w.secretFile))]) }),
            ])
        }
        let body = RelayJSON.object([
            ("source", .string(config.source)),
            ("listen", RelayJSON.object([("host", .string(config.listen.host)), ("port", RelayJSON.number(config.listen.port)),
                                         ("tls_port", RelayJSON.number(config.listen.tlsPort))])),
            ("queue", RelayJSON.object([("capacity", RelayJSON.number(config.queue.capacity)), ("fsync", .bool(config.queue.fsync))])),
            ("limits", RelayJSON.object([("max_body_bytes", RelayJSON.number(config.limits.maxBodyBytes)),
                                         ("max_targets", RelayJSON.number(config.limits.maxTargets)),
                                         ("max_notifications", RelayJSON.number(config.limits.maxNotifications))])),
            ("metrics", RelayJSON.object([("require_admin_key", .bool(config.metrics.requireAdminKey))])),
            ("workers", RelayJSON.object([("concurrency", RelayJSON.number(config.workers.concurrency)),
                                          ("max_attempts", RelayJSON.number(config.workers.maxAttempts)),
                                          ("lease_seconds", RelayJSON.number(config.workers.leaseSeconds)),
                                          ("transport", RelayJSON.string(config.workers.transport.rawValue))])),
            ("apps", .array(JSONArray(apps))),
        ])
        return .json(200, body.prettyPrinted() + "\n")
    }

    /// The `.p8` key's path and file hash with its ids, or the certificate's path, SHA-256
    /// fingerprint, topics and validity; a password only by where it comes from.
    private func authentication(_ authentication: RelayApp.Authentication, app: String,
                                file: (String?) -> JSONValue?) -> [(String, JSONValue?)] {
        switch authentication {
        case .token(let keyPath, let keyID, let teamID):
            return [("key", file(keyPath)), ("key_id", .string(keyID)), ("team_id", .string(teamID))]
        case .certificate(let c):
            var certificate: [(String, JSONValue?)] = [("path", .string(c.path))]
            if case .certificate(let loaded)? = service.credentials[app]?.apns {
                let facts = loaded.facts
                let formatter = ISO8601DateFormatter()
                certificate += [("sha256", .string(facts.fingerprint)), ("subject", .string(facts.subject)),
                                ("topics", .array(JSONArray(facts.topics.map { JSONValue.string($0) }))),
                                ("environments", .array(JSONArray(APNsEnvironment.allCases.filter(facts.environments.contains).map { JSONValue.string($0.rawValue) }))),
                                ("not_after", .string(formatter.string(from: facts.notAfter)))]
            }
            return [("certificate", RelayJSON.object(certificate)), ("certificate_key", file(c.keyPath)),
                    ("certificate_password_file", RelayJSON.string(c.passwordFile)),
                    ("certificate_password_env", RelayJSON.string(c.passwordVariable))]
        }
    }

    private func queueDepth() async throws -> ServerResponse {
        let depth = try await read { try await service.queue.depth() }
        let body = RelayJSON.object([("waiting", RelayJSON.number(depth.waiting)), ("claimed", RelayJSON.number(depth.claimed)),
                                     ("finished", RelayJSON.number(depth.finished)), ("capacity", RelayJSON.number(service.config.queue.capacity)),
                                     ("in_flight", RelayJSON.number(service.workers.inFlight))])
        return .json(200, body.minifiedString + "\n")
    }

    private func metrics() async -> ServerResponse {
        let depth = try? await service.queue.depth()
        return ServerResponse(status: 200, headers: ["content-type": "text/plain; version=0.0.4; charset=utf-8"],
                              body: Array((service.metrics.prometheusText(depth: depth) + (await clusterMetrics())).utf8))
    }

    /// Runs a queue read, turning its failure into a 500/503 (503 `redis_unavailable` with
    /// Retry-After on a cluster node).
    func read<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as PushQueueError {
            if error != .closed, service.queue is RedisPushQueue {
                throw APIError.redisUnavailable("the relay cannot read from its Redis", fix: "retry after the Retry-After seconds")
            }
            throw APIError(error == .closed ? 503 : 500, "storage", "\(error)", fix: "retry; see the relay's log")
        }
    }
}

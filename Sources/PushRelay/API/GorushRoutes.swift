import Foundation
import PushCore
import PushHTTP

/// gorush's API under a per-app base URL (docs/relay.md "gorush compatibility"):
/// `/gorush/{app}/api/push`, `/api/stat/app`, `/api/stat/go`, `/healthz`, `/version`, `/`.
/// gorush has no authentication; here the app's API key comes as a bearer header, or — for
/// clients that cannot set headers — as a path segment: `/gorush/{app}/key/{key}/api/push`
/// (the key then shows in access logs and proxies: rotate it more often). Without a key only
/// when `gorush.unauthenticated` is set, which the config allows on loopback only.
struct GorushRoutes: Sendable {
    let service: RelayService

    func add(to router: inout Router) {
        for base in ["/gorush/{app}", "/gorush/{app}/key/{key}"] {
            router.add("POST", base + "/api/push") { request in .later { await answer(request) { try await push(request) } } }
            router.add("GET", base + "/api/stat/app") { request in .later { await answer(request) { try await statApp(request) } } }
            router.add("GET", base + "/api/stat/go") { request in .later { await answer(request) { try await statRuntime(request) } } }
            router.add("GET", base + "/healthz") { request in .later { await answer(request) { _ = try await app(request); return ServerResponse(status: 200) } } }
            router.add("GET", base + "/version") { request in
                .later { await answer(request) { _ = try await app(request); return .json(200, #"{"source":"https://github.com/pushlab","version":"pushlab-relay"}"#) } }
            }
            router.add("GET", base) { request in
                .later { await answer(request) { _ = try await app(request); return .json(200, #"{"text":"Welcome to notification server."}"#) } }
            }
        }
    }

    private var routes: RelayRoutes { RelayRoutes(service: service) }

    /// Errors in gorush's shape plus the relay's fields: `{"code":400,"message":…,"error":…,"field":…,"fix":…}`.
    private func answer(_ request: ServerRequest, _ body: () async throws -> ServerResponse) async -> ServerResponse {
        var response = await routes.answer(request, body)
        response.headers.set("x-gorush-version", "pushlab-relay")
        guard response.status >= 400, let document = try? JSONDocument.parse(response.body), case .object(var o) = document.root else { return response }
        let message = o["message"]?.stringValue ?? ""
        o.members.insert(JSONMember(key: "code", value: .number(JSONNumber(response.status))), at: 0)
        o.members.removeAll { $0.key == "message" }
        o.members.insert(JSONMember(key: "message", value: .string(message)), at: 1)
        response.body = Array((JSONValue.object(o).minifiedString + "\n").utf8)
        return response
    }

    /// The app, if the request may use it: bearer key, path key, or unauthenticated staging.
    private func app(_ request: ServerRequest) async throws -> RelayApp {
        let name = request.pathParameters["app"] ?? ""
        if let key = request.pathParameters["key"] {
            let found: APIKeyScope?
            do { found = try await service.keys.scope(ofKey: key) } catch { throw APIError.keyLookupFailed(error) }
            guard let scope = found else { throw APIError.unauthorized("unknown or revoked API key in the path") }
            guard let app = service.config.app(named: name), scope.allows(app: name) else {
                throw APIError(403, "forbidden", field: "path app", "this API key is not for app '\(name)'", fix: "use the app's own key")
            }
            return app
        }
        if service.config.gorush.unauthenticated, request.headers["authorization"] == nil {
            guard let app = service.config.app(named: name) else {
                throw APIError(404, "unknown_app", field: "path app", "no app '\(name)' in relay.json", fix: "use one of: \(service.config.apps.map(\.name).joined(separator: ", "))")
            }
            return app
        }
        return try await routes.authorizedApp(request)
    }

    private func push(_ request: ServerRequest) async throws -> ServerResponse {
        let app = try await app(request)
        let key = try routes.idempotencyKey(request)
        let query = Query(request.query)
        let sync = try query.bool("sync") ?? false
        let parsed = try GorushRequest.parse(request.body, app: app, limits: service.config.limits)
        var receipts: [(GorushRequest.Notification, EnqueueReceipt)] = []
        for (i, notification) in parsed.notifications.enumerated() {
            let receipt = try await routes.enqueue(app: app, content: notification.content, targets: notification.targets,
                                                   key: key.map { "\($0)#\(i)" },
                                                   fingerprint: RelayRoutes.fingerprint(kind: "gorush", app: app.name, body: notification.source))
            receipts.append((notification, receipt))
        }
        let counts = receipts.reduce(0) { $0 + $1.1.targetCount }
        var logs: [JSONValue] = []
        if sync {
            // gorush's sync mode: wait for every notification, list the failures.
            let deadline = ContinuousClock.now + RelayRoutes.maxWait
            for (notification, receipt) in receipts {
                var status = try await routes.read { try await service.queue.status(of: receipt.pushID, includeTargets: false) }
                while let s = status, !s.isFinished, ContinuousClock.now < deadline {
                    try? await Task.sleep(for: .milliseconds(20))
                    status = try await routes.read { try await service.queue.status(of: receipt.pushID, includeTargets: false) }
                }
                let full = try await routes.read { try await service.queue.status(of: receipt.pushID, includeTargets: true) }
                for t in full?.targets ?? [] where t.phase != .sent {
                    logs.append(RelayJSON.object([
                        ("notif_id", RelayJSON.string(notification.notifID)), ("type", .string(t.phase == .failed ? "failed-push" : "pending-push")),
                        ("platform", .string(notification.platform == GorushRequest.iOS ? "ios" : "android")), ("token", .string(t.target.value)),
                        ("message", .string(t.outcome == nil ? "not finished within \(RelayRoutes.maxWait)" : "push failed")),
                        ("error", .string(t.outcome?.reason ?? t.lastError ?? "pending")), ("push_id", .string(receipt.pushID.rawValue)),
                    ]))
                }
            }
        }
        let body = RelayJSON.object([("counts", RelayJSON.number(counts)), ("logs", .array(JSONArray(logs))), ("success", .string("ok")),
                                     ("push_ids", .array(JSONArray(receipts.map { .string($0.1.pushID.rawValue) })))])
        var headers = HTTPHeaders()
        if receipts.contains(where: { $0.1.isReplay }) { headers.add("idempotent-replayed", "true") }
        return .json(200, body.minifiedString, headers: headers)
    }

    private func statApp(_ request: ServerRequest) async throws -> ServerResponse {
        let app = try await app(request)
        let totals = service.metrics.totals(app: app.name)
        let counts = service.metrics.counts()
        func platform(_ name: String) -> JSONValue {
            RelayJSON.object([("push_success", RelayJSON.number(totals.sent[name] ?? 0)), ("push_error", RelayJSON.number(totals.failed[name] ?? 0))])
        }
        let sent = totals.sent.values.reduce(0, +), failed = totals.failed.values.reduce(0, +)
        let body = RelayJSON.object([
            ("version", .string("pushlab-relay")), ("busy_workers", RelayJSON.number(service.workers.inFlight)),
            ("success_tasks", RelayJSON.number(sent)), ("failure_tasks", RelayJSON.number(failed)),
            ("submitted_tasks", RelayJSON.number(counts.pushesAccepted)), ("total_count", RelayJSON.number(totals.accepted)),
            ("ios", platform("apns")), ("android", platform("fcm")),
            ("huawei", RelayJSON.object([("push_success", RelayJSON.number(0)), ("push_error", RelayJSON.number(0))])),
        ])
        return .json(200, body.minifiedString)
    }

    /// gorush answers Go runtime numbers here; the relay answers its process's.
    private func statRuntime(_ request: ServerRequest) async throws -> ServerResponse {
        _ = try await app(request)
        let info = ProcessInfo.processInfo
        let body = RelayJSON.object([
            ("time", .number(JSONNumber(Int(Date().timeIntervalSince1970 * 1e9)))), ("runtime", .string("swift")),
            ("os", .string(info.operatingSystemVersionString)), ("cpu_num", RelayJSON.number(info.activeProcessorCount)),
            ("pid", RelayJSON.number(Int(info.processIdentifier))),
        ])
        return .json(200, body.minifiedString)
    }
}

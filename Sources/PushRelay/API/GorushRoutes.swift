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

    /// Behind `api`: gorush's error shape and `RelayAuth(.gorush)` (bearer key, path key, or
    /// unauthenticated staging).
    func add(to router: inout Router, api: RelayAPIRoutes) {
        for base in ["/gorush/{app}", "/gorush/{app}/key/{key}"] {
            api.add(to: &router, "POST", base + "/api/push", .gorush) { request, context in try await push(request, app: try context.authorizedApp()) }
            api.add(to: &router, "GET", base + "/api/stat/app", .gorush) { _, context in statApp(try context.authorizedApp()) }
            api.add(to: &router, "GET", base + "/api/stat/go", .gorush) { _, _ in statRuntime() }
            api.add(to: &router, "GET", base + "/healthz", .gorush) { _, _ in ServerResponse(status: 200) }
            api.add(to: &router, "GET", base + "/version", .gorush) { _, _ in .json(200, #"{"source":"https://github.com/pushlab","version":"pushlab-relay"}"#) }
            api.add(to: &router, "GET", base, .gorush) { _, _ in .json(200, #"{"text":"Welcome to notification server."}"#) }
        }
    }

    private var routes: RelayRoutes { RelayRoutes(service: service) }

    private func push(_ request: ServerRequest, app: RelayApp) async throws -> ServerResponse {
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

    private func statApp(_ app: RelayApp) -> ServerResponse {
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
    private func statRuntime() -> ServerResponse {
        let info = ProcessInfo.processInfo
        let body = RelayJSON.object([
            ("time", .number(JSONNumber(Int(Date().timeIntervalSince1970 * 1e9)))), ("runtime", .string("swift")),
            ("os", .string(info.operatingSystemVersionString)), ("cpu_num", RelayJSON.number(info.activeProcessorCount)),
            ("pid", RelayJSON.number(Int(info.processIdentifier))),
        ])
        return .json(200, body.minifiedString)
    }
}

import Foundation
import PushCore
import PushHTTP

/// What the relay's web console (`pushlab relay --console`, PushConsole) reads and does. The
/// console checks its own access (loopback, its access token) before it calls these. Nothing
/// here carries key material, API keys, JWTs or access tokens; the console shortens the device
/// tokens before they reach a page.
extension Relay {
    /// An app as the console's send form shows it: its name and where its pushes go.
    public struct AppSummary: Sendable, Hashable, Encodable {
        public var name: String
        /// The bundle id (the APNs topic), `sandbox`/`production`, and `apple`/`emulator`.
        public var apnsTopic: String?
        public var apnsEnvironment: String?
        public var apnsTarget: String?
        /// The Firebase project (when relay.json or the service account names it), `google`/`emulator`.
        public var fcmProject: String?
        public var fcmTarget: String?
    }

    public var appSummaries: [AppSummary] {
        config.apps.map { app in
            AppSummary(name: app.name, apnsTopic: app.apns?.bundleID, apnsEnvironment: app.apns?.environment.rawValue,
                       apnsTarget: app.apns?.target.rawValue,
                       fcmProject: app.fcm?.projectID ?? service.senders[app.name]?.fcmClient?.projectID,
                       fcmTarget: app.fcm?.target.rawValue)
        }
    }

    /// A native push for `app`, through `POST /v1/apps/{app}/pushes`'s own code once the caller
    /// passed the console's access check (in place of an API key): the same parsing, catalog
    /// validation, durable enqueue, metrics, log line and observer, and the same answer (202
    /// with the push id, or 4xx/5xx naming the field).
    public func submitPush(app name: String, body: [UInt8]) async -> ServerResponse {
        await RelayErrorShape(shape: .native, metrics: service.metrics).answer(app: name) {
            guard let app = service.config.app(named: name) else { throw APIError.unknownApp(name, known: service.config.apps.map(\.name)) }
            return try await RelayRoutes(service: service).createPush(app: app, body: body, idempotencyKey: nil)
        }
    }

    /// A token (or topic) the relay delivered to, with its newest final result.
    public struct DeliveredToken: Sendable {
        public var target: PushTarget
        /// The newest final result among the deliveries read.
        public var last: DeliveryRecord
        /// Final results for this target among the deliveries read, and how many were sent.
        public var results: Int
        public var sent: Int
    }

    /// The targets of `app`'s newest `limit` final results, each once, newest result first
    /// (the delivery log `GET /v1/apps/{app}/deliveries` reads).
    public func deliveredTokens(app: String, limit: Int) async throws(PushQueueError) -> [DeliveredToken] {
        let records = try await queue.deliveries(app: app, token: nil, since: nil, limit: limit)
        var order: [PushTarget] = []
        var byTarget: [PushTarget: DeliveredToken] = [:]
        for record in records {
            if var seen = byTarget[record.target] {
                seen.results += 1
                seen.sent += record.outcome.status == .sent ? 1 : 0
                byTarget[record.target] = seen
            } else {
                order.append(record.target)
                byTarget[record.target] = DeliveredToken(target: record.target, last: record, results: 1,
                                                         sent: record.outcome.status == .sent ? 1 : 0)
            }
        }
        return order.compactMap { byTarget[$0] }
    }

    /// `app`'s invalid-token feed, newest first (`GET /v1/apps/{app}/invalid-tokens`).
    public func invalidTokens(app: String, limit: Int) async throws(PushQueueError) -> [InvalidToken] {
        try await queue.invalidTokens(app: app, since: nil, limit: limit)
    }

    /// The counters `/metrics` exports (the same ones, not a second count), the queue's depth
    /// and the sends in flight, read now.
    public struct MetricsSnapshot: Sendable, Encodable {
        public var apps: [RelayMetrics.AppCounts]
        public var pushesAccepted: Int
        public var pushesFinished: Int
        public var duplicates: Int
        /// Nil when the queue could not be read (`queueError` says why).
        public var queue: QueueDepth?
        public var queueError: String?
        public var capacity: Int
        public var inFlight: Int
        public var concurrency: Int
        public var at: Date
    }

    public func metricsSnapshot() async -> MetricsSnapshot {
        var depth: QueueDepth?
        var queueError: String?
        do { depth = try await queue.depth() } catch { queueError = "\(error)" }
        let counts = metrics.counts(apps: config.apps.map(\.name))
        return MetricsSnapshot(apps: counts.apps, pushesAccepted: counts.pushesAccepted, pushesFinished: counts.pushesFinished,
                               duplicates: counts.duplicates, queue: depth, queueError: queueError, capacity: config.queue.capacity,
                               inFlight: service.workers.inFlight, concurrency: config.workers.concurrency, at: Date())
    }
}

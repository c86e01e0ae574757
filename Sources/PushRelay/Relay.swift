import Foundation
import PushHTTP

/// `pushlab relay`: the push gateway a team runs (docs/relay.md). Wires the API server, the
/// durable queue, the workers, webhooks and metrics; explicit `start()` and a graceful `stop()`
/// that drains the sends in flight.
public final class Relay: Sendable {
    let service: RelayService
    private let server: HTTPServer

    public var config: RelayConfig { service.config }
    public var queue: any PushQueue { service.queue }
    public var keys: APIKeyStore { service.keys }
    public var metrics: RelayMetrics { service.metrics }

    /// - Parameters:
    ///   - queue: the queue to use; nil opens the embedded SQLite queue at `DATA/queue.sqlite`.
    ///   - cluster: what several nodes share besides the queue (a `RedisPushQueue` is one); nil
    ///     for one node (keys in `DATA/keys.sqlite`, tokens and budgets of its own).
    ///   - emulator: where the in-process emulator listens, for apps whose target is `emulator`.
    ///   - log: one line per push and per problem (tokens shortened, no secrets).
    ///   - observer: sees each accepted push and each target's final result (`relay --console`).
    ///   - accessLog: gets one line per API request (`AccessLog`); nil: none.
    ///   - extraRoutes: more routes on the relay's HTTP server (the console's).
    public init(config: RelayConfig, dataDirectory: String, queue: (any PushQueue)? = nil, cluster: (any RelayClusterState)? = nil,
                emulator: EmulatorEndpoints? = nil,
                log: @escaping @Sendable (String) -> Void = { _ in }, accessLog: (@Sendable (String) -> Void)? = nil, observer: (any RelayObserver)? = nil,
                extraRoutes: (inout Router) -> Void = { _ in }) throws {
        service = try RelayService(config: config, dataDirectory: dataDirectory, queue: queue, cluster: cluster, emulator: emulator, log: log, observer: observer)
        let serverConfiguration = HTTPServerConfiguration(
            host: config.listen.host, tlsPort: config.listen.tlsPort, cleartextPort: config.listen.port,
            certificateFile: config.listen.certificate, privateKeyFile: config.listen.privateKey,
            maxRequestBodyBytes: config.limits.maxBodyBytes, eventLoops: 1)
        var router = RelayRoutes(service: service).router(accessLog: accessLog)
        extraRoutes(&router)
        server = HTTPServer(configuration: serverConfiguration, router: router)
    }

    /// Resumes what a previous run left claimed, starts the workers and the API.
    public func start() async throws {
        let resumed = try await service.queue.recoverAbandoned()
        let depth = try await service.queue.depth()
        if resumed > 0 || depth.unfinished > 0 {
            // SQLite keeps no claims (all unfinished targets are ready on open); Redis releases a dead incarnation's.
            service.log("relay: resuming \(depth.unfinished) unfinished targets" + (resumed > 0 ? " (\(resumed) were claimed when the last run stopped)" : ""))
        }
        service.workers.start()
        service.webhooks.start()
        service.startHeartbeat()
        try server.start()
    }

    public var addresses: BoundAddresses? { server.boundAddresses }

    /// Loads and checks every app's credentials (keys, certificates, service accounts) and
    /// webhook secret without creating or opening anything: what the relay does first at
    /// start-up, and all `pushlab relay --check` needs.
    public static func loadCredentials(_ config: RelayConfig, environment: [String: String] = ProcessInfo.processInfo.environment,
                                       now: Date = Date()) throws(RelayConfigError) -> [String: AppCredentials] {
        var out: [String: AppCredentials] = [:]
        for app in config.apps {
            out[app.name] = try AppCredentials.load(app, source: config.source, environment: environment, now: now)
            if let webhook = app.webhook { _ = try WebhookDispatcher.secret(of: webhook, app: app.name) }
        }
        return out
    }

    /// Stops taking requests, lets every send in flight finish and record its result,
    /// flushes webhooks (briefly) and closes the queue.
    public func stop() async {
        await server.stop()
        await service.workers.stop()
        await service.stopHeartbeat()
        await service.webhooks.stop()
        for sender in service.senders.values { await sender.shutdown() }
        await service.queue.close()
    }
}

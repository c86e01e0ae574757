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
        let progress = service.workers.progress
        progress.enter("stopping the API server (its requests in flight get up to 10 s)")
        await server.stop()
        await service.workers.stop()
        progress.enter("stopping the heartbeat")
        await service.stopHeartbeat()
        progress.enter("flushing the webhooks")
        await service.webhooks.stop()
        progress.enter("closing the HTTP clients")
        for sender in service.senders.values { await sender.shutdown() }
        progress.enter("closing the queue")
        await service.queue.close()
        progress.enter("stopped")
    }

    /// What each part of this node waits on now, one line each, for a person: the stop's
    /// step, the targets held by stage, the workers, the queue calls pending with their ages,
    /// each HTTP client loop (`pushlab relay` prints it on SIGQUIT and when a stop overruns its
    /// bound; docs/relay.md "Asking a node what it waits on"). Reads only locked state: it
    /// answers even when every task is stuck.
    public func stateReport() -> String {
        let now = ContinuousClock.now
        var lines = ["relay state: node \(service.node), pid \(ProcessInfo.processInfo.processIdentifier), up "
                     + RelayStateText.seconds(.seconds(Date().timeIntervalSince(service.startedAt)))]
        lines += service.workers.stateLines(now: now)
        for name in service.senders.keys.sorted() {
            for (client, state) in service.senders[name]!.loopStates {
                lines.append("client \(name) \(client): \(state.summary)")
            }
        }
        return lines.joined(separator: "\n  ")
    }

    /// Sleeps of this node's HTTP client loops that ran out their cap with work left undone
    /// (`HTTPClientLoopState.missedWakeups`): 0 unless a wake-up was lost.
    public var missedWakeups: Int {
        service.senders.values.reduce(0) { sum, senders in sum + senders.loopStates.reduce(0) { $0 + $1.state.missedWakeups } }
    }

    /// The stop overran its bound: no send starts any more and the targets claimed ahead go
    /// back to the queue (each given back at most once; the sends in flight and answers not
    /// yet recorded are left to their leases). Returns one line saying what happened.
    public func abandonStop() async -> String {
        let (givenBack, left, error) = await service.workers.abandonDrain()
        var line = givenBack > 0 ? "gave back \(givenBack) targets claimed ahead" : "no target claimed ahead to give back"
        if let error { line += " (could not give them back: \(error))" }
        return line + "; \(left) targets sending or not yet recorded are left to their lease (sent again after it, elsewhere or at the next start)"
    }
}

import Foundation
import PushAuth
import PushCore
import PushHTTP
import PushRedis
import PushSend

/// The relay's parts, shared by the routes and the workers.
final class RelayService: Sendable {
    let config: RelayConfig
    let dataDirectory: String
    let queue: any PushQueue
    let keys: APIKeyStore
    let metrics = RelayMetrics()
    let senders: [String: AppSenders]
    /// Each app's loaded credentials (the read-back shows their fingerprints).
    let credentials: [String: AppCredentials]
    let workers: DeliveryWorkers
    let webhooks: WebhookDispatcher
    let log: @Sendable (String) -> Void
    let observer: (any RelayObserver)?
    private let pushIDs = PushIDSource()
    /// What the nodes share besides the queue (`--queue redis://…` or `redis-cluster://…`);
    /// nil for the embedded SQLite queue.
    let cluster: (any RelayClusterState)?
    /// This node's name: its consumer in the Redis group, its heartbeat in `GET /v1/cluster`.
    let node: String
    private let heartbeat = SanitizerVisibleMutex<Task<Void, Never>?>(nil)
    let startedAt = Date()

    init(config: RelayConfig, dataDirectory: String, queue: (any PushQueue)?, cluster: (any RelayClusterState)? = nil,
         emulator: EmulatorEndpoints?, log: @escaping @Sendable (String) -> Void, observer: (any RelayObserver)? = nil) throws {
        self.config = config
        self.cluster = cluster
        self.dataDirectory = dataDirectory
        self.log = log
        self.observer = observer
        // Credentials first: a relay that cannot authenticate refuses to start before it
        // creates or opens anything.
        credentials = try Relay.loadCredentials(config)
        try FileManager.default.createDirectory(atPath: dataDirectory, withIntermediateDirectories: true)
        self.queue = try queue ?? SQLitePushQueue(path: dataDirectory + "/queue.sqlite",
                                                  configuration: .init(capacity: config.queue.capacity, fsyncEveryCommit: config.queue.fsync))
        // A cluster's keys live in its Redis, so every node knows every key and every revoke.
        if let cluster {
            keys = APIKeyStore(redis: cluster.sharedClient, prefix: cluster.sharedPrefix)
        } else {
            keys = try APIKeyStore(path: dataDirectory + "/keys.sqlite")
        }
        // Inline retries inside one claim (PushSend's policy: backoff, Retry-After, never-retry
        // reasons); what still fails goes back to the queue until workers.max_attempts.
        let retry = RetryPolicy(maxAttempts: min(3, config.workers.maxAttempts), baseDelay: .milliseconds(200), maxDelay: .seconds(5),
                                maxRetryAfter: .seconds(30))
        var senders: [String: AppSenders] = [:]
        node = cluster?.node ?? "relay-\(ProcessInfo.processInfo.processIdentifier)"
        for app in config.apps {
            senders[app.name] = try AppSenders(app: app, credentials: credentials[app.name]!, emulator: emulator, retry: retry,
                                               shared: cluster?.sharedClient, sharedPrefix: cluster?.sharedPrefix ?? "pushlab", transport: config.workers.transport)
        }
        self.senders = senders
        let metrics = self.metrics
        let webhooks = try WebhookDispatcher(apps: config.apps, metrics: metrics, log: log)
        self.webhooks = webhooks
        // One budget per app, and one FCM budget per Firebase project for every app that sends to
        // it (FCM's quota is per project, docs/specs/fcm.md); on Redis every node spends from the
        // same ones (Lua token buckets), not its own.
        let prefix = cluster?.sharedPrefix ?? "pushlab"
        func budget(_ name: String, perMinute: Int) -> any SendBudget {
            guard let client = cluster?.sharedClient else { return RateBudget(perMinute: perMinute) }
            return SharedSendBudget(budget: RedisRateBudget(client: client, key: "\(prefix):budget:\(name)",
                                                            budget: PushRedis.RateBudget(limit: perMinute, per: .seconds(60))),
                                    fallback: RateBudget(perMinute: perMinute), log: log)
        }
        let budgets = senders.mapValues { budget("app:\($0.app.name)", perMinute: $0.app.ratePerMinute) }
        var fcmProjectBudgets: [String: any SendBudget] = [:]
        let appsByProject = Dictionary(grouping: senders.values.filter { $0.fcmClient != nil }, by: { $0.fcmClient?.projectID ?? "" })
        for (project, apps) in appsByProject {
            // Apps that name different limits for one project get the smallest.
            let perMinute = apps.compactMap { $0.app.fcm?.projectRatePerMinute }.min() ?? RelayApp.FCM.defaultProjectRatePerMinute
            let shared = budget("fcm:\(project)", perMinute: perMinute)
            for sender in apps { fcmProjectBudgets[sender.app.name] = shared }
        }
        workers = DeliveryWorkers(queue: self.queue, senders: senders, budgets: budgets, fcmProjectBudgets: fcmProjectBudgets, settings: config.workers, metrics: metrics,
                                  consumer: node, events: RelayEventFanOut(webhooks: webhooks, observer: observer, apps: config.apps), log: log)
    }

    /// Every 2 s this node writes its heartbeat to Redis (nothing to do on SQLite).
    func startHeartbeat() {
        guard let redis = cluster else { return }
        let node = self.node, started = startedAt, log = self.log
        let task = Task {
            var failing = false
            while !Task.isCancelled {
                do {
                    try await redis.heartbeat(node: node, startedAt: started)
                    if failing { log("relay: Redis reachable again (\(redis.location))") }
                    failing = false
                } catch {
                    if !failing { log("relay: heartbeat failed: \(error); retrying") }
                    failing = true
                }
                try? await Task.sleep(for: .seconds(2))
            }
        }
        heartbeat.withLock { $0 = task }
    }

    func stopHeartbeat() async {
        let task = heartbeat.withLock { t in defer { t = nil }; return t }
        task?.cancel()
        await task?.value
    }

    /// Queues a push for `app` after its request was checked; answers like `enqueue`.
    func enqueue(app: RelayApp, content: RelayPushContent, targets: [PushTarget], idempotencyKey: String?,
                 fingerprint: String) async throws(PushQueueError) -> EnqueueReceipt {
        let submission = PushSubmission(id: pushIDs.next(), app: app.name, content: content.encoded(), targets: targets,
                                        idempotencyKey: idempotencyKey, requestFingerprint: fingerprint, acceptedAt: Date())
        let receipt = try await queue.enqueue(submission)
        if !receipt.isReplay {
            let apns = targets.count { $0.kind == .apnsToken }
            if apns > 0 { metrics.accepted(app: app.name, platform: "apns", targets: apns) }
            if targets.count > apns { metrics.accepted(app: app.name, platform: "fcm", targets: targets.count - apns) }
            metrics.pushAccepted()
            observer?.accepted(RelayAcceptedPush(pushID: receipt.pushID, app: app.name, targets: targets, content: content,
                                                 acceptedAt: submission.acceptedAt))
            workers.poke()
            let sample = targets.prefix(2).map { Redact.token($0.value) }.joined(separator: ", ")
            log("relay: accepted \(receipt.pushID) app=\(app.name) targets=\(targets.count) (apns \(apns), fcm \(targets.count - apns)) e.g. \(sample)")
        }
        return receipt
    }
}

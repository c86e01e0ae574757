import Foundation
import PushAuth
import PushCore
import PushHTTP
import Synchronization

/// Posts each app's events (final results, invalid tokens, finished pushes) to its webhook in
/// batches, off the send path: workers only append to a bounded buffer.
///
/// Each POST carries `Pushlab-Timestamp` (UNIX seconds) and
/// `Pushlab-Signature: v1=<hex HMAC-SHA256(secret, timestamp + "." + body)>` (docs/relay.md
/// "Webhooks"); receivers recompute it and refuse old timestamps. A failed POST is retried
/// with backoff (0.5 s, 1 s, 2 s, 4 s); after the last attempt its events are counted as
/// `failed` in `/metrics`. A full buffer drops new events, counted as `dropped`.
final class WebhookDispatcher: Sendable {
    static let batchSize = 100
    static let bufferLimit = 20_000
    static let backoff: [Duration] = [.milliseconds(500), .seconds(1), .seconds(2), .seconds(4)]

    private final class Hook: Sendable {
        let app: String
        let url: String
        let secret: [UInt8]
        let client: HTTPClient
        let buffer = SanitizerVisibleMutex<[JSONValue]>([])
        let wakeup = Wakeup()
        init(app: String, url: String, secret: [UInt8], client: HTTPClient) {
            self.app = app
            self.url = url
            self.secret = secret
            self.client = client
        }
    }

    private let hooks: [String: Hook]
    private let metrics: RelayMetrics
    private let log: @Sendable (String) -> Void
    private let tasks = SanitizerVisibleMutex<[Task<Void, Never>]>([])
    private let stopping = Atomic<Bool>(false)

    init(apps: [RelayApp], metrics: RelayMetrics, log: @escaping @Sendable (String) -> Void) throws {
        var hooks: [String: Hook] = [:]
        for app in apps {
            guard let webhook = app.webhook else { continue }
            let secret = try Self.secret(of: webhook, app: app.name)
            let client = try HTTPClient(configuration: HTTPClientConfiguration(caFile: webhook.caFile, requestTimeout: .seconds(10)))
            hooks[app.name] = Hook(app: app.name, url: webhook.url, secret: Array(secret.utf8), client: client)
        }
        self.hooks = hooks
        self.metrics = metrics
        self.log = log
    }

    /// The HMAC secret: the first line of `secret_file`, which must not be empty.
    static func secret(of webhook: RelayApp.Webhook, app: String) throws(RelayConfigError) -> String {
        let text = (try? String(contentsOfFile: webhook.secretFile, encoding: .utf8)) ?? ""
        let secret = text.split(separator: "\n").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        guard !secret.isEmpty else {
            throw RelayConfigError(file: webhook.secretFile, pointer: "", message: "the webhook secret file of app '\(app)' is empty",
                                   fix: "write a random secret on its first line, e.g. openssl rand -hex 32 > \(webhook.secretFile)")
        }
        return secret
    }

    /// The signature header value for `body` sent at `timestamp`.
    static func signature(secret: [UInt8], timestamp: Int, body: [UInt8]) -> String {
        "v1=" + Digest.hex(Digest.hmacSHA256(key: secret, message: Array("\(timestamp).".utf8) + body))
    }

    func start() {
        let started = hooks.values.map { hook in Task { await self.run(hook) } }
        tasks.withLock { $0 = started }
    }

    /// Hands an event over; never waits.
    func record(_ event: RelayEvent) {
        let app: String
        var items: [JSONValue] = []
        switch event {
        case .result(let a, let pushID, let index, let target, let outcome, _):
            app = a
            guard hooks[a] != nil else { return }
            items.append(RelayJSON.resultEvent(pushID: pushID, index: index, target: target, outcome: outcome))
            if outcome.tokenInvalid { items.append(RelayJSON.invalidTokenEvent(pushID: pushID, target: target, outcome: outcome)) }
        case .pushFinished(let a, let status):
            app = a
            guard hooks[a] != nil else { return }
            items.append(RelayJSON.pushFinishedEvent(status))
        }
        guard let hook = hooks[app] else { return }
        let (accepted, full) = hook.buffer.withLock { b -> (Bool, Bool) in
            guard b.count + items.count <= Self.bufferLimit else { return (false, false) }
            b += items
            return (true, b.count >= Self.batchSize)
        }
        if !accepted { metrics.webhook(app: app, outcome: "dropped", count: items.count) }
        if full { hook.wakeup.signal() }
    }

    /// Sends what is buffered (up to a few seconds), then stops.
    func stop() async {
        stopping.store(true, ordering: .relaxed)
        for hook in hooks.values { hook.wakeup.signal() }
        for task in tasks.withLock({ $0 }) { await task.value }
        for hook in hooks.values { await hook.client.shutdown() }
    }

    private func run(_ hook: Hook) async {
        while true {
            let stop = stopping.load(ordering: .relaxed)
            let batch: [JSONValue] = hook.buffer.withLock { b in
                let n = min(Self.batchSize, b.count)
                defer { b.removeFirst(n) }
                return Array(b.prefix(n))
            }
            if batch.isEmpty {
                if stop { return }
                await hook.wakeup.wait(timeout: .milliseconds(500))
                continue
            }
            await deliver(batch, to: hook, attempts: stop ? 1 : Self.backoff.count + 1)
        }
    }

    private func deliver(_ events: [JSONValue], to hook: Hook, attempts: Int) async {
        let body = JSONValue.object(JSONObject([
            JSONMember(key: "app", value: .string(hook.app)),
            JSONMember(key: "events", value: .array(JSONArray(events))),
        ])).minifiedBytes()
        for attempt in 0..<attempts {
            let timestamp = Int(Date().timeIntervalSince1970)
            var headers = HTTPHeaders()
            headers.add("content-type", "application/json")
            headers.add("pushlab-timestamp", String(timestamp))
            headers.add("pushlab-signature", Self.signature(secret: hook.secret, timestamp: timestamp, body: body))
            let request = HTTPRequest(method: "POST", url: hook.url, headers: headers, body: body, timeout: .seconds(10), maxResponseBodyBytes: 64 << 10)
            let status = (try? await hook.client.send(request))?.status ?? 0
            if (200..<300).contains(status) {
                metrics.webhook(app: hook.app, outcome: "delivered", count: events.count)
                return
            }
            if attempt < attempts - 1 { try? await Task.sleep(for: Self.backoff[min(attempt, Self.backoff.count - 1)]) }
        }
        metrics.webhook(app: hook.app, outcome: "failed", count: events.count)
        log("relay: webhook of app \(hook.app) failed after \(attempts) attempts; \(events.count) events not delivered")
    }
}

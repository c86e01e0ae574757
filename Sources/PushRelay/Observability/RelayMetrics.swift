import Foundation
import PushCore
import PushHTTP

/// The relay's counters, exported as Prometheus text at `/metrics` (docs/relay.md
/// "Observability"). Labels: app, platform (`apns`/`fcm`), reason (provider reason or
/// transport failure). Also feeds gorush's `/api/stat/app`.
public final class RelayMetrics: Sendable {
    struct Key: Hashable, Comparable {
        var app: String
        var platform: String
        var reason: String = ""
        static func < (a: Key, b: Key) -> Bool { (a.app, a.platform, a.reason) < (b.app, b.platform, b.reason) }
    }

    /// Upper bounds (seconds) of the send latency histogram.
    static let latencyBuckets: [Double] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

    struct State {
        var accepted: [Key: Int] = [:]
        var sent: [Key: Int] = [:]
        var failed: [Key: Int] = [:]
        var retried: [Key: Int] = [:]
        var duplicates = 0
        var latencyCounts: [String: [Int]] = [:]
        var latencySum: [String: Double] = [:]
        var latencyCount: [String: Int] = [:]
        var webhook: [Key: Int] = [:]
        var requestsRefused: [Key: Int] = [:]
        var pushesAccepted = 0
        var pushesFinished = 0
    }

    /// Counted by the recorder and read by `/metrics`: hand-overs ThreadSanitizer can see.
    private let state = SanitizerVisibleMutex(State())

    public init() {}

    func accepted(app: String, platform: String, targets: Int) {
        state.withLock { $0.accepted[Key(app: app, platform: platform), default: 0] += targets }
    }

    func pushAccepted() { state.withLock { $0.pushesAccepted += 1 } }
    func pushFinished() { state.withLock { $0.pushesFinished += 1 } }

    /// One recorded final result: its app, platform, outcome and send latency.
    struct Finished {
        var app: String
        var platform: String
        var outcome: TargetOutcome
        var latency: Duration
    }

    /// Counts a batch of final results under one lock. A batch is mostly one app and platform:
    /// results are tallied per run of equal labels and per latency bucket first, so the shared
    /// counters are looked up once per run, not once per result.
    func finished(_ results: [Finished]) {
        guard !results.isEmpty else { return }
        var runs: [(key: Key, sent: Bool, count: Int)] = []
        var latencies: [(platform: String, inBucket: [Int], sum: Double, count: Int)] = []
        for r in results {
            let sent = r.outcome.status == .sent
            let key = Key(app: r.app, platform: r.platform, reason: sent ? "" : r.outcome.reason ?? "unknown")
            if let last = runs.indices.last, runs[last].sent == sent, runs[last].key == key {
                runs[last].count += 1
            } else {
                runs.append((key, sent, 1))
            }
            let seconds = r.latency.seconds
            // The first bucket that holds it; past the last bound it counts in `+Inf` only.
            let bucket = Self.latencyBuckets.firstIndex { seconds <= $0 } ?? Self.latencyBuckets.count
            let p: Int
            if let i = latencies.firstIndex(where: { $0.platform == r.platform }) { p = i } else {
                latencies.append((r.platform, Array(repeating: 0, count: Self.latencyBuckets.count + 1), 0, 0))
                p = latencies.count - 1
            }
            latencies[p].inBucket[bucket] += 1
            latencies[p].sum += seconds
            latencies[p].count += 1
        }
        state.withLock { s in
            for run in runs {
                if run.sent { s.sent[run.key, default: 0] += run.count } else { s.failed[run.key, default: 0] += run.count }
            }
            for l in latencies {
                // Buckets are cumulative (`le`): each bound counts every result at or below it.
                if s.latencyCounts[l.platform] == nil { s.latencyCounts[l.platform] = Array(repeating: 0, count: Self.latencyBuckets.count) }
                var atOrBelow = 0
                for i in Self.latencyBuckets.indices {
                    atOrBelow += l.inBucket[i]
                    s.latencyCounts[l.platform]![i] += atOrBelow
                }
                s.latencySum[l.platform, default: 0] += l.sum
                s.latencyCount[l.platform, default: 0] += l.count
            }
        }
    }

    func retried(app: String, platform: String) { state.withLock { $0.retried[Key(app: app, platform: platform), default: 0] += 1 } }
    func duplicateResults(_ n: Int) { if n > 0 { state.withLock { $0.duplicates += n } } }
    func webhook(app: String, outcome: String, count: Int = 1) {
        state.withLock { $0.webhook[Key(app: app, platform: "", reason: outcome), default: 0] += count }
    }
    func refused(app: String, status: Int) {
        state.withLock { $0.requestsRefused[Key(app: app, platform: "", reason: String(status)), default: 0] += 1 }
    }

    /// Totals per platform for gorush's `/api/stat/app`.
    func totals(app: String) -> (accepted: Int, sent: [String: Int], failed: [String: Int]) {
        state.withLock { s in
            var sent: [String: Int] = [:], failed: [String: Int] = [:]
            for (k, v) in s.sent where k.app == app { sent[k.platform, default: 0] += v }
            for (k, v) in s.failed where k.app == app { failed[k.platform, default: 0] += v }
            let accepted = s.accepted.filter { $0.key.app == app }.reduce(0) { $0 + $1.value }
            return (accepted, sent, failed)
        }
    }

    func counts() -> (pushesAccepted: Int, pushesFinished: Int, duplicates: Int) {
        state.withLock { ($0.pushesAccepted, $0.pushesFinished, $0.duplicates) }
    }

    /// One app's counters, as `/metrics` exports them (summed over platforms and reasons).
    public struct AppCounts: Sendable, Hashable, Encodable {
        public var app: String
        /// `pushlab_relay_accepted_targets_total`, `…_sent_total`, `…_failed_total`, `…_rescheduled_total`.
        public var accepted = 0
        public var sent = 0
        public var failed = 0
        public var retried = 0
        /// `…_failed_total` by reason.
        public var failedByReason: [String: Int] = [:]
    }

    /// The counters `/metrics` exports, per app (every app of `apps`, in that order, also those
    /// with nothing counted yet), for the relay's console.
    public func counts(apps: [String]) -> (apps: [AppCounts], pushesAccepted: Int, pushesFinished: Int, duplicates: Int) {
        let s = state.withLock { $0 }
        var byApp = Dictionary(uniqueKeysWithValues: apps.map { ($0, AppCounts(app: $0)) })
        for (k, v) in s.accepted { byApp[k.app, default: AppCounts(app: k.app)].accepted += v }
        for (k, v) in s.sent { byApp[k.app, default: AppCounts(app: k.app)].sent += v }
        for (k, v) in s.retried { byApp[k.app, default: AppCounts(app: k.app)].retried += v }
        for (k, v) in s.failed {
            byApp[k.app, default: AppCounts(app: k.app)].failed += v
            byApp[k.app, default: AppCounts(app: k.app)].failedByReason[k.reason, default: 0] += v
        }
        let order = apps + byApp.keys.filter { !apps.contains($0) }.sorted()
        return (order.compactMap { byApp[$0] }, s.pushesAccepted, s.pushesFinished, s.duplicates)
    }

    /// Prometheus text exposition format 0.0.4.
    func prometheusText(depth: QueueDepth?) -> String {
        let s = state.withLock { $0 }
        var out = ""
        func family(_ name: String, _ type: String, _ help: String) { out += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n" }
        func labels(_ pairs: [(String, String)]) -> String {
            let inner = pairs.filter { !$0.1.isEmpty }.map { "\($0.0)=\"\(Self.escape($0.1))\"" }.joined(separator: ",")
            return inner.isEmpty ? "" : "{\(inner)}"
        }
        family("pushlab_relay_accepted_targets_total", "counter", "Targets durably queued, by app and platform.")
        for (k, v) in s.accepted.sorted(by: { $0.key < $1.key }) { out += "pushlab_relay_accepted_targets_total\(labels([("app", k.app), ("platform", k.platform)])) \(v)\n" }
        family("pushlab_relay_sent_total", "counter", "Targets the provider accepted, by app and platform.")
        for (k, v) in s.sent.sorted(by: { $0.key < $1.key }) { out += "pushlab_relay_sent_total\(labels([("app", k.app), ("platform", k.platform)])) \(v)\n" }
        family("pushlab_relay_failed_total", "counter", "Targets with a final failure, by app, platform and reason.")
        for (k, v) in s.failed.sorted(by: { $0.key < $1.key }) {
            out += "pushlab_relay_failed_total\(labels([("app", k.app), ("platform", k.platform), ("reason", k.reason)])) \(v)\n"
        }
        family("pushlab_relay_rescheduled_total", "counter", "Targets put back in the queue for a later attempt.")
        for (k, v) in s.retried.sorted(by: { $0.key < $1.key }) { out += "pushlab_relay_rescheduled_total\(labels([("app", k.app), ("platform", k.platform)])) \(v)\n" }
        family("pushlab_relay_duplicate_results_total", "counter", "Results for targets that already had one (sent twice after a crash or an expired lease).")
        out += "pushlab_relay_duplicate_results_total \(s.duplicates)\n"
        family("pushlab_relay_requests_refused_total", "counter", "API requests answered 4xx/5xx, by app and status.")
        for (k, v) in s.requestsRefused.sorted(by: { $0.key < $1.key }) { out += "pushlab_relay_requests_refused_total\(labels([("app", k.app), ("status", k.reason)])) \(v)\n" }
        family("pushlab_relay_webhook_events_total", "counter", "Webhook events by app and outcome (delivered, failed = retries ran out, dropped = buffer full).")
        for (k, v) in s.webhook.sorted(by: { $0.key < $1.key }) { out += "pushlab_relay_webhook_events_total\(labels([("app", k.app), ("outcome", k.reason)])) \(v)\n" }
        family("pushlab_relay_queue_targets", "gauge", "Targets in the queue by state.")
        if let depth {
            out += "pushlab_relay_queue_targets{state=\"waiting\"} \(depth.waiting)\n"
            out += "pushlab_relay_queue_targets{state=\"claimed\"} \(depth.claimed)\n"
            out += "pushlab_relay_queue_targets{state=\"finished\"} \(depth.finished)\n"
        }
        family("pushlab_relay_send_latency_seconds", "histogram", "Time from first attempt to final answer per target, retries included.")
        for platform in s.latencyCounts.keys.sorted() {
            let counts = s.latencyCounts[platform] ?? []
            for (i, bound) in Self.latencyBuckets.enumerated() {
                out += "pushlab_relay_send_latency_seconds_bucket{platform=\"\(platform)\",le=\"\(bound)\"} \(counts[i])\n"
            }
            out += "pushlab_relay_send_latency_seconds_bucket{platform=\"\(platform)\",le=\"+Inf\"} \(s.latencyCount[platform] ?? 0)\n"
            out += "pushlab_relay_send_latency_seconds_sum{platform=\"\(platform)\"} \(s.latencySum[platform] ?? 0)\n"
            out += "pushlab_relay_send_latency_seconds_count{platform=\"\(platform)\"} \(s.latencyCount[platform] ?? 0)\n"
        }
        return out
    }

    static func escape(_ value: String) -> String {
        value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"").replacingOccurrences(of: "\n", with: "\\n")
    }
}

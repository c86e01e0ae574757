import Foundation
import PushHTTP

/// The shared state of one NSE run. The image task, the metric task and the lifecycle all touch
/// it, so every field is protected by `fields`' lock. The lock also orders side effects against expiry
/// and kill: a side effect runs under the lock only while the run is still live, so nothing
/// happens after the kill instant and no pending row is removed after its request was cancelled.
final class ExtensionRunState: Sendable {
    private let clock: any NSEClock
    private let origin: Duration
    private let fields = SanitizerVisibleMutex(Fields())

    private struct Fields {
        var entries: [NSETimelineEntry] = []
        var killed = false
        var cancelled = false
        var attachment: RichPushAttachment?
        var image: ImageReport = .noImage
        var metric: DeliveredMetricOutcome?
        var metricAttempts: [MetricAttempt] = []
        var rowRemoved = false
    }

    init(clock: any NSEClock, origin: Duration) {
        self.clock = clock
        self.origin = origin
    }

    /// Emulated time since the push arrived.
    var elapsed: Duration { clock.now() - origin }

    func log(_ event: String) {
        fields.withLock { fields in
            guard !fields.killed else { return }
            fields.entries.append(NSETimelineEntry(tMs: (clock.now() - origin).milliseconds, event: event))
        }
    }

    /// Runs `body` only while the run is live (not killed, not cancelled by expiry).
    @discardableResult
    func whileLive(_ body: () -> Void) -> Bool {
        fields.withLock { fields in
            guard !fields.killed && !fields.cancelled else { return false }
            body()
            return true
        }
    }

    /// The process dies: nothing after this instant happens.
    func kill(_ event: String) {
        fields.withLock { fields in
            fields.entries.append(NSETimelineEntry(tMs: (clock.now() - origin).milliseconds, event: event))
            fields.killed = true
        }
    }

    /// Expiry (or the improved soft deadline): in-flight work is cancelled; its late results
    /// must change nothing.
    func cancelInFlight() { fields.withLock { $0.cancelled = true } }

    func setImage(_ report: ImageReport, attachment: RichPushAttachment?) {
        fields.withLock { fields in
            guard !fields.killed && !fields.cancelled else { return }
            fields.image = report
            fields.attachment = attachment
        }
    }

    /// A metric attempt that ended before the deadline: kept for the report even when a later
    /// attempt is still in flight at expiry.
    func addMetricAttempt(_ attempt: MetricAttempt) {
        fields.withLock { fields in
            guard !fields.killed && !fields.cancelled else { return }
            fields.metricAttempts.append(attempt)
        }
    }

    /// The metric settled before the deadline: records it and, for an acknowledged one, runs
    /// `removeRow` (§2 step 4) — both only while the run is live, under one lock, so expiry or a
    /// kill sees either both or neither.
    func settleMetric(_ outcome: DeliveredMetricOutcome, removeRow: () -> Bool) {
        fields.withLock { fields in
            guard !fields.killed && !fields.cancelled else { return }
            fields.metric = outcome
            if outcome.result == .acknowledged && removeRow() { fields.rowRemoved = true }
        }
    }

    var snapshot: (timeline: [NSETimelineEntry], attachment: RichPushAttachment?, image: ImageReport,
                   metric: DeliveredMetricOutcome?, metricAttempts: [MetricAttempt], rowRemoved: Bool, killed: Bool) {
        fields.withLock { ($0.entries, $0.attachment, $0.image, $0.metric, $0.metricAttempts, $0.rowRemoved, $0.killed) }
    }
}

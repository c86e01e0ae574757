import Foundation

/// The shared state of one NSE run. The image task, the metric task and the lifecycle all touch
/// it, so every field is protected by `lock`. The lock also orders side effects against expiry
/// and kill: a side effect runs under the lock only while the run is still live, so nothing
/// happens after the kill instant and no pending row is removed after its request was cancelled.
final class ExtensionRunState: @unchecked Sendable {
    private let lock = NSLock()
    private let clock: any NSEClock
    private let origin: Duration
    // Everything below is protected by `lock`.
    private var entries: [NSETimelineEntry] = []
    private var killed = false
    private var cancelled = false
    private var attachment: RichPushAttachment?
    private var image: ImageReport = .noImage
    private var metric: DeliveredMetricOutcome?
    private var rowRemoved = false

    init(clock: any NSEClock, origin: Duration) {
        self.clock = clock
        self.origin = origin
    }

    /// Emulated time since the push arrived.
    var elapsed: Duration { clock.now() - origin }

    func log(_ event: String) {
        lock.withLock {
            guard !killed else { return }
            entries.append(NSETimelineEntry(tMs: (clock.now() - origin).milliseconds, event: event))
        }
    }

    /// Runs `body` only while the run is live (not killed, not cancelled by expiry).
    @discardableResult
    func whileLive(_ body: () -> Void) -> Bool {
        lock.withLock {
            guard !killed && !cancelled else { return false }
            body()
            return true
        }
    }

    /// The process dies: nothing after this instant happens.
    func kill(_ event: String) {
        lock.withLock {
            entries.append(NSETimelineEntry(tMs: (clock.now() - origin).milliseconds, event: event))
            killed = true
        }
    }

    /// Expiry (or the improved soft deadline): in-flight work is cancelled; its late results
    /// must change nothing.
    func cancelInFlight() { lock.withLock { cancelled = true } }

    func setImage(_ report: ImageReport, attachment: RichPushAttachment?) {
        whileLive {
            image = report
            self.attachment = attachment
        }
    }

    func setMetric(_ outcome: DeliveredMetricOutcome) { lock.withLock { if metric == nil { metric = outcome } } }
    func markRowRemoved() { lock.withLock { rowRemoved = true } }

    var snapshot: (timeline: [NSETimelineEntry], attachment: RichPushAttachment?, image: ImageReport,
                   metric: DeliveredMetricOutcome?, rowRemoved: Bool, killed: Bool) {
        lock.withLock { (entries, attachment, image, metric, rowRemoved, killed) }
    }
}

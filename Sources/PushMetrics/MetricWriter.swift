import Foundation

/// Batches the collector's writes: handlers on the server's event loop hand their records
/// over and return at once; a serial queue commits everything pending in one transaction a
/// few milliseconds later (or at once past `maxPending`). Duplicate detection happens at
/// hand-over, in arrival order, so it needs no read from disk.
///
/// Thread safety: `pending`, `seenKeys`, `scheduled`, `failures` are protected by `lock`;
/// SQLite is touched only on `queue`.
public final class MetricWriter: @unchecked Sendable {
    /// Gets the record's duplicate flags and the commit's error, if any.
    public typealias Completion = @Sendable (_ duplicates: [Bool], _ error: (any Error)?) -> Void

    private let store: MetricStore
    private let queue = DispatchQueue(label: "pushlab.metrics.writer")
    private let lock = NSLock()
    private var pending: [(MetricRequestRecord, Completion?)] = []
    private var seenKeys: Set<String>
    private var scheduled = false
    private var failures = 0
    private let delay: DispatchTimeInterval
    private let maxPending: Int
    private let onError: @Sendable (any Error) -> Void

    /// `delay`: how long a record may wait for companions before its batch is committed.
    public init(store: MetricStore, delay: DispatchTimeInterval = .milliseconds(5), maxPending: Int = 512,
                onError: @escaping @Sendable (any Error) -> Void = { _ in }) throws {
        self.store = store
        self.delay = delay
        self.maxPending = maxPending
        self.onError = onError
        seenKeys = try store.deduplicationKeys()
    }

    /// Hands `record` over for writing with `metrics` as its metrics; returns, per metric,
    /// whether it repeats an earlier (delivery id, metric). `onCommit` runs after the
    /// transaction holding the record committed (or failed).
    @discardableResult
    public func submit(_ record: MetricRequestRecord, metrics: [ReportedMetric], onCommit: Completion? = nil) -> [Bool] {
        var record = record
        let (duplicates, flushNow, schedule): ([Bool], Bool, Bool) = lock.withLock {
            let flags = metrics.map { !seenKeys.insert($0.deduplicationKey).inserted }
            record.metrics = Array(zip(metrics, flags)).map { ($0.0, isDuplicate: $0.1) }
            pending.append((record, onCommit))
            let wasScheduled = scheduled
            scheduled = true
            return (flags, pending.count >= maxPending, !wasScheduled)
        }
        if flushNow {
            queue.async { self.drain() }
        } else if schedule {
            queue.asyncAfter(deadline: .now() + delay) { self.drain() }
        }
        return duplicates
    }

    /// Commits everything handed over so far before returning.
    public func flush() {
        queue.sync { drain() }
    }

    /// Writes that failed and are waiting to be retried (0 in a healthy run).
    public var failedAttempts: Int { lock.withLock { failures } }

    private func drain() {
        let batch: [(MetricRequestRecord, Completion?)] = lock.withLock {
            let b = pending
            pending.removeAll(keepingCapacity: true)
            scheduled = false
            return b
        }
        guard !batch.isEmpty else { return }
        do {
            try store.insert(batch.map(\.0))
            for (record, done) in batch { done?(record.metrics.map(\.isDuplicate), nil) }
        } catch {
            onError(error)
            // Records whose client waits for the commit get the error (it answers 503 and
            // the client retries); the others stay queued and are retried, never dropped.
            for (record, done) in batch { done?(record.metrics.map(\.isDuplicate), error) }
            let retry = batch.filter { $0.1 == nil }
            lock.withLock {
                failures += 1
                pending.insert(contentsOf: retry, at: 0)
                scheduled = true
            }
            queue.asyncAfter(deadline: .now() + .milliseconds(200)) { self.drain() }
        }
    }
}

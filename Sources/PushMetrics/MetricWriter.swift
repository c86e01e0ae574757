import Foundation
import Synchronization

/// Batches the collector's writes (group commit): handlers on the server's event loop hand
/// their records over and return at once; a serial queue commits everything pending in one
/// transaction as soon as it is free — records that arrive while a commit runs wait for the
/// next one, so the busier the collector, the larger each transaction. Duplicate detection
/// happens at hand-over, in arrival order, so it needs no read from disk.
///
/// Thread safety: the hand-over state lives in one `Mutex`; SQLite is touched only on `queue`.
public final class MetricWriter: Sendable {
    /// Gets the record's duplicate flags and the commit's error, if any.
    public typealias Completion = @Sendable (_ duplicates: [Bool], _ error: (any Error)?) -> Void

    private let store: MetricStore
    private let queue = DispatchQueue(label: "pushlab.metrics.writer")
    private struct HandOver {
        var pending: [(MetricRequestRecord, Completion?)] = []
        /// Every (delivery id, metric) seen, for duplicate flags.
        var seenKeys: Set<MetricKey>
        /// A drain is already queued.
        var scheduled = false
        var failures = 0
    }
    private let state: Mutex<HandOver>
    private let delay: DispatchTimeInterval?
    private let maxPending: Int
    private let onError: @Sendable (any Error) -> Void

    /// `delay`: how long a record may wait for companions before its batch is committed (nil,
    /// the default: not at all — the next commit starts as soon as the writer is free);
    /// `maxPending`: how many may wait (1 commits each one inside `submit`).
    public init(store: MetricStore, delay: DispatchTimeInterval? = nil, maxPending: Int = 512,
                onError: @escaping @Sendable (any Error) -> Void = { _ in }) throws {
        self.store = store
        self.delay = delay
        self.maxPending = maxPending
        self.onError = onError
        state = Mutex(HandOver(seenKeys: try store.deduplicationKeys()))
    }

    /// Hands `record` over for writing with `metrics` as its metrics; returns, per metric,
    /// whether it repeats an earlier (delivery id, metric). `onCommit` runs after the
    /// transaction holding the record committed (or failed).
    @discardableResult
    public func submit(_ record: MetricRequestRecord, metrics: [ReportedMetric], onCommit: Completion? = nil) -> [Bool] {
        var record = record
        let (duplicates, flushNow, schedule): ([Bool], Bool, Bool) = state.withLock { s in
            let flags = metrics.map { !s.seenKeys.insert($0.deduplicationKey).inserted }
            record.metrics = metrics.indices.map { (metrics[$0], isDuplicate: flags[$0]) }
            s.pending.append((record, onCommit))
            let wasScheduled = s.scheduled
            s.scheduled = true
            return (flags, s.pending.count >= maxPending, !wasScheduled)
        }
        if flushNow && maxPending <= 1 {
            // Unbatched: committed on the caller's thread before `submit` returns, with no queue
            // hop and no timer left behind (the fuzz targets' collectors, Fuzz/README.md).
            queue.sync { drain() }
        } else if flushNow {
            queue.async { self.drain() }
        } else if schedule, let delay {
            queue.asyncAfter(deadline: .now() + delay) { self.drain() }
        } else if schedule {
            queue.async { self.drain() }
        }
        return duplicates
    }

    /// Commits everything handed over so far before returning.
    public func flush() {
        queue.sync { drain() }
    }

    /// Writes that failed and are waiting to be retried (0 in a healthy run).
    public var failedAttempts: Int { state.withLock { $0.failures } }

    private func drain() {
        let batch: [(MetricRequestRecord, Completion?)] = state.withLock { s in
            let b = s.pending
            s.pending.removeAll(keepingCapacity: true)
            s.scheduled = false
            return b
        }
        guard !batch.isEmpty else { return }
        do {
            try store.insert(batch.map(\.0))
            for (record, done) in batch { done?(record.metrics.map(\.isDuplicate), nil) }
        } catch {
            onError(error)
            // Records whose client waits for the commit get the error (it answers 503 and the
            // client retries); the others stay queued and are retried, never dropped. A refused
            // record was never stored, so its keys are forgotten first — before its client can
            // retry — or the retry would count as a duplicate.
            let retry = batch.filter { $0.1 == nil }
            let refusedKeys = batch.filter { $0.1 != nil }.flatMap { $0.0.metrics.filter { !$0.isDuplicate }.map(\.0.deduplicationKey) }
            state.withLock { s in
                for key in refusedKeys { s.seenKeys.remove(key) }
                s.failures += 1
                s.pending.insert(contentsOf: retry, at: 0)
                s.scheduled = true
            }
            for (record, done) in batch { done?(record.metrics.map(\.isDuplicate), error) }
            queue.asyncAfter(deadline: .now() + .milliseconds(200)) { self.drain() }
        }
    }
}

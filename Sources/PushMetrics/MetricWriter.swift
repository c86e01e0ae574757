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
        /// Handed over, not yet committed; `completions` and `duplicates` run beside `pending`
        /// (kept apart so a commit passes `pending` to the store as it is, without a copy).
        var pending: [MetricRequestRecord] = []
        var completions: [Completion?] = []
        var duplicates: [[Bool]] = []
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
            s.pending.append(record)
            s.completions.append(onCommit)
            s.duplicates.append(flags)
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
        var records: [MetricRequestRecord] = [], completions: [Completion?] = [], duplicates: [[Bool]] = []
        state.withLock { s in
            swap(&records, &s.pending)
            swap(&completions, &s.completions)
            swap(&duplicates, &s.duplicates)
            s.pending.reserveCapacity(records.count)
            s.completions.reserveCapacity(records.count)
            s.duplicates.reserveCapacity(records.count)
            s.scheduled = false
        }
        guard !records.isEmpty else { return }
        do {
            try store.insert(records)
            for (done, flags) in zip(completions, duplicates) { done?(flags, nil) }
        } catch {
            onError(error)
            // Records whose client waits for the commit get the error (it answers 503 and the
            // client retries); the others stay queued and are retried, never dropped. A refused
            // record was never stored, so its keys are forgotten first — before its client can
            // retry — or the retry would count as a duplicate.
            var retry: [MetricRequestRecord] = [], retryFlags: [[Bool]] = [], refusedKeys: [MetricKey] = []
            for (k, record) in records.enumerated() {
                if completions[k] == nil {
                    retry.append(record)
                    retryFlags.append(duplicates[k])
                } else {
                    refusedKeys += record.metrics.filter { !$0.isDuplicate }.map(\.0.deduplicationKey)
                }
            }
            state.withLock { s in
                for key in refusedKeys { s.seenKeys.remove(key) }
                s.failures += 1
                s.pending.insert(contentsOf: retry, at: 0)
                s.completions.insert(contentsOf: Array(repeating: nil, count: retry.count), at: 0)
                s.duplicates.insert(contentsOf: retryFlags, at: 0)
                s.scheduled = true
            }
            for (done, flags) in zip(completions, duplicates) { done?(flags, error) }
            queue.asyncAfter(deadline: .now() + .milliseconds(200)) { self.drain() }
        }
    }
}

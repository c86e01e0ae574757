import Foundation
import PushHTTP
import Synchronization

/// Batches the collector's writes (group commit): handlers on the server's event loops hand
/// their records over and return at once; a serial queue commits everything pending in one
/// transaction as soon as it is free — records that arrive while a commit runs wait for the
/// next one, so the busier the collector, the larger each transaction. One exception keeps
/// transactions large under load: when the last commit held at least `gatherFrom` records and
/// fewer than half as many are pending, the writer waits once for more (a commit writes whole
/// pages, so a few records per commit cost several times more each; a lone request is still
/// committed at once) — until as many are pending as the last commit held, or `gatherWait` at
/// most: clients waiting for their answers come back together, and an idle writer waiting out
/// the rest of the time would hold every answer of the next commit back with it. Duplicate
/// detection happens at hand-over, in arrival order, so it needs no read from disk.
///
/// Thread safety: the hand-over state lives in one `Mutex`; SQLite is touched only on `queue`.
public final class MetricWriter: Sendable {
    /// Gets the record's duplicate flags and the commit's error, if any, on the writer's thread;
    /// an answer to a client goes into `answers`, which the writer sends once every completion of
    /// the commit ran (one hand-over per event loop, not one per answer).
    public typealias Completion = @Sendable (_ duplicates: [Bool], _ error: (any Error)?, _ answers: inout ResponseBatch) -> Void

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
        /// A drain that commits at once (a full batch, the early end of a gather wait) is queued:
        /// one is enough, it takes everything pending.
        var commitQueued = false
        var failures = 0
        /// Records in the last commit, and whether the queued drain already waited for more.
        var lastBatch = 0
        var gathered = false
        /// While a drain waits for companions: the pending count that ends the wait early, and
        /// which wait it is (a wait that ended early leaves its timer behind).
        var gatherTarget: Int?
        var gatherRound = 0
        /// Times a drain waited for companions, and drains run (tests).
        var gatherWaits = 0
        var drains = 0
    }
    /// Batches from this size on count as "busy" (see the type's comment).
    static let gatherFrom = 32
    /// How long a busy writer waits at most, once, for companions of a small batch.
    public static let defaultGatherWait: DispatchTimeInterval = .milliseconds(1)

    /// Whether a drain finding `pending` records should wait `gatherWait` first: only when the
    /// last commit was busy, this batch is not empty and less than half of it, and it has not
    /// waited yet.
    static func shouldGather(pending: Int, lastBatch: Int, alreadyWaited: Bool) -> Bool {
        !alreadyWaited && pending > 0 && lastBatch >= gatherFrom && pending < lastBatch / 2
    }
    private let state: Mutex<HandOver>
    private let delay: DispatchTimeInterval?
    private let gatherWait: DispatchTimeInterval
    private let maxPending: Int
    private let onError: @Sendable (any Error) -> Void

    /// `delay`: how long a record may wait for companions before its batch is committed (nil,
    /// the default: not at all — the next commit starts as soon as the writer is free);
    /// `maxPending`: how many may wait (1 commits each one inside `submit`); `gatherWait`: how
    /// long a busy writer waits at most for companions of a small batch (see the type's comment).
    public init(store: MetricStore, delay: DispatchTimeInterval? = nil, maxPending: Int = 512,
                gatherWait: DispatchTimeInterval = defaultGatherWait,
                onError: @escaping @Sendable (any Error) -> Void = { _ in }) throws {
        self.store = store
        self.delay = delay
        self.gatherWait = gatherWait
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
        // Built before the lock (the loops and the writer share it); only the flags are set inside.
        record.metrics = metrics.map { ($0, isDuplicate: false) }
        let (duplicates, commitNow, schedule): ([Bool], Bool, Bool) = state.withLock { s in
            let flags = metrics.map { !s.seenKeys.insert($0.deduplicationKey).inserted }
            for k in flags.indices where flags[k] { record.metrics[k].isDuplicate = true }
            s.pending.append(record)
            s.completions.append(onCommit)
            s.duplicates.append(flags)
            let wasScheduled = s.scheduled
            s.scheduled = true
            var due = s.pending.count >= maxPending
            if let target = s.gatherTarget, s.pending.count >= target {
                s.gatherTarget = nil
                due = true
            }
            // One drain that commits at once is enough: it takes everything pending. Unbatched
            // (`maxPending` 1), every caller still commits its own record.
            guard due, maxPending <= 1 || !s.commitQueued else { return (flags, false, !wasScheduled) }
            s.commitQueued = true
            return (flags, true, false)
        }
        if commitNow && maxPending <= 1 {
            // Unbatched: committed on the caller's thread before `submit` returns, with no queue
            // hop and no timer left behind (the fuzz targets' collectors, Fuzz/README.md).
            queue.sync { drain() }
        } else if commitNow {
            queue.async { self.drain(waitingAllowed: false) }
        } else if schedule, let delay {
            queue.asyncAfter(deadline: .now() + delay) { self.drain() }
        } else if schedule {
            queue.async { self.drain() }
        }
        return duplicates
    }

    /// As `submit(_:metrics:onCommit:)` with a completion that answers no client.
    @discardableResult
    public func submit(_ record: MetricRequestRecord, metrics: [ReportedMetric],
                       onCommit: @escaping @Sendable (_ duplicates: [Bool], _ error: (any Error)?) -> Void) -> [Bool] {
        submit(record, metrics: metrics) { duplicates, error, _ in onCommit(duplicates, error) }
    }

    /// Commits everything handed over so far before returning.
    public func flush() {
        queue.sync { drain(waitingAllowed: false) }
    }

    /// Times the writer waited for companions of a small batch (tests).
    var gatherWaits: Int { state.withLock { $0.gatherWaits } }

    /// Drains run so far, whether or not they found anything to commit (tests).
    var drains: Int { state.withLock { $0.drains } }

    /// Makes the writer act as if its last commit held `count` records (tests: a busy writer
    /// without a race to get there).
    func assumeLastCommit(of count: Int) { state.withLock { $0.lastBatch = count } }

    /// Writes that failed and are waiting to be retried (0 in a healthy run).
    public var failedAttempts: Int { state.withLock { $0.failures } }

    /// The end of gather wait `round` by its timer, unless enough companions ended it before.
    private func endGather(round: Int) {
        let due = state.withLock { s in
            guard s.gatherTarget != nil, s.gatherRound == round else { return false }
            s.gatherTarget = nil
            return true
        }
        if due { drain(waitingAllowed: false) }
    }

    /// `waitingAllowed`: false commits what is pending now (`flush`, a full batch, the end of a
    /// gather wait).
    private func drain(waitingAllowed: Bool = true) {
        var records: [MetricRequestRecord] = [], completions: [Completion?] = [], duplicates: [[Bool]] = []
        let gatherRound: Int? = state.withLock { s in
            s.drains += 1
            if waitingAllowed, delay == nil, Self.shouldGather(pending: s.pending.count, lastBatch: s.lastBatch, alreadyWaited: s.gathered) {
                s.gathered = true  // `scheduled` stays set: handlers queue no other drain meanwhile
                s.gatherWaits += 1
                s.gatherTarget = s.lastBatch
                s.gatherRound += 1
                return s.gatherRound
            }
            swap(&records, &s.pending)
            swap(&completions, &s.completions)
            swap(&duplicates, &s.duplicates)
            s.pending.reserveCapacity(records.count)
            s.completions.reserveCapacity(records.count)
            s.duplicates.reserveCapacity(records.count)
            s.scheduled = false
            s.commitQueued = false
            s.gathered = false
            s.gatherTarget = nil
            if !records.isEmpty { s.lastBatch = records.count }
            return nil
        }
        if let gatherRound {
            queue.asyncAfter(deadline: .now() + gatherWait) { self.endGather(round: gatherRound) }
            return
        }
        guard !records.isEmpty else { return }
        do {
            try store.insert(records)
            var answers = ResponseBatch()
            for (done, flags) in zip(completions, duplicates) { done?(flags, nil, &answers) }
            answers.send()
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
            var answers = ResponseBatch()
            for (done, flags) in zip(completions, duplicates) { done?(flags, error, &answers) }
            answers.send()
            queue.asyncAfter(deadline: .now() + .milliseconds(200)) { self.drain() }
        }
    }
}

import Foundation
import PushHTTP

/// Writes the workers' answers to the queue, batch after batch, on the queue's writer thread
/// when it has one (`PushQueue.writerExecutor`: the batch goes to the writer and its answer
/// comes back with no thread switch). A worker moves on to its next target as soon as its
/// answer is in; the answers that came in meanwhile are written in one `complete` (finals) and
/// one `reschedule` (retries), so a result costs the queue one batch's share, not a write of its
/// own.
///
/// It writes once the answers are due (`HeldTargets.nextBatch`): while sends are in flight it
/// lets up to `recordBatch` gather for `gatherWait`, per stream of the queue (a Redis Cluster's
/// queue writes each master's stream in a call of its own, so a batch holds whole streams'
/// answers: each call carries a stream's batch, not a share of one). Until then it waits with no timer: the
/// worker whose answer makes them due signals it (`DeliverySignals.answersDue`), or the tick
/// when no answer comes meanwhile (so an answer waits at most `gatherWait` while others come in,
/// one tick when none does).
///
/// Guarantees:
/// - Every answer is written in exactly one batch: a final result (sent, a rejection that must
///   not be retried, or the last error after `workers.max_attempts`) with `complete`, a retryable
///   failure back to the queue with `reschedule` (1 s, 2 s, 4 s … at most 60 s later). A write
///   that fails is tried again for about 3 s (`persisting`); given up, its targets are left to
///   their leases and sent again (at least once).
/// - Exactly one final result per target: the queue keeps a target's first and reports the rest
///   as duplicates (`pushlab_relay_duplicate_results_total`); only the results it kept are
///   counted and announced (`.result` events), and each finished push is announced once
///   (`.pushFinished`), after its results are written.
/// - A batch stays in the send bound (`HeldTargets.recording`) and its targets stay held
///   (leases renewed) until it is written or given up; then parked workers may take its room.
/// - It ends once stopping with no send in flight and no answer left to write.
final class ResultRecorder: Sendable {
    private let queue: any PushQueue
    private let calls: PendingCalls
    private let held: HeldTargets
    private let pool: WorkerPool
    private let signals: DeliverySignals
    private let maxAttempts: Int
    private let metrics: RelayMetrics
    private let events: RelayEventFanOut
    private let log: @Sendable (String) -> Void
    private let task = SanitizerVisibleMutex<Task<Void, Never>?>(nil)
    /// Pushes whose `push_finished` was announced: two targets of one push can finish at the same
    /// moment and both see the push finished, but it is announced once. The newest 10,000 ids.
    private let announced = SanitizerVisibleMutex(AnnouncedPushes())

    init(queue: any PushQueue, held: HeldTargets, pool: WorkerPool, signals: DeliverySignals, maxAttempts: Int,
         metrics: RelayMetrics, events: RelayEventFanOut, calls: PendingCalls, log: @escaping @Sendable (String) -> Void) {
        self.queue = queue
        self.calls = calls
        self.held = held
        self.pool = pool
        self.signals = signals
        self.maxAttempts = maxAttempts
        self.metrics = metrics
        self.events = events
        self.log = log
    }

    func start() {
        let recorder = Task(executorPreference: queue.writerExecutor) { await self.run() }
        task.withLock { $0 = recorder }
    }

    /// Waits until the last answers are written (after `WorkerPool.stop` and the drain).
    func finish() async {
        signals.answersDue.signal()
        await task.withLock({ $0 })?.value
    }

    private func run() async {
        while true {
            switch held.nextBatch(now: ContinuousClock.now) {
            case .done: return
            case .wait: await signals.answersDue.wait()
            case .write(let batch): await record(batch)
            }
        }
    }

    /// Records a batch of answers: final results in one `complete`, retryable failures back to
    /// the queue in one `reschedule`; then, with the batch out of the send bound, metrics,
    /// events and the pushes they finished.
    private func record(_ batch: [SendAnswer]) async {
        let now = Date()
        var finals: [TargetCompletion] = []
        /// When each final's send started (the latency histogram).
        var starts: [ContinuousClock.Instant] = []
        var retries: [TargetRetry] = []
        finals.reserveCapacity(batch.count)
        starts.reserveCapacity(batch.count)
        for answer in batch {
            switch decide(answer, now: now) {
            case .final(let outcome):
                finals.append(TargetCompletion(answer.claim, outcome))
                starts.append(answer.start)
            case .retry(let retry):
                retries.append(retry)
            }
        }
        await reschedule(retries)
        let report = await complete(finals)
        let stopping = held.recorded(batch)
        pool.handOut()
        // `stop()` waits for the last results; the claim loop does not wait on recording.
        if stopping { signals.claimsLow.signal() }
        guard let report else { return }
        announce(report, finals: finals, starts: starts)
        await announceFinished(report.finishedPushes, finals: finals)
    }

    private func reschedule(_ retries: [TargetRetry]) async {
        guard !retries.isEmpty else { return }
        do {
            try await persisting { () async throws(PushQueueError) in
                try await calls.track("reschedule \(retries.count) results") { () async throws(PushQueueError) in try await queue.reschedule(retries) }
            }
            for retry in retries { metrics.retried(app: retry.claim.app, platform: retry.claim.target.platform) }
        } catch {
            log("relay: could not reschedule \(retries.count) targets (first \(retries[0].claim.pushID)#\(retries[0].claim.index)): \(error); "
                + "their leases will run out and they are sent again")
        }
    }

    private func complete(_ finals: [TargetCompletion]) async -> CompletionReport? {
        guard !finals.isEmpty else { return nil }
        do {
            return try await persisting { () async throws(PushQueueError) in
                try await calls.track("complete \(finals.count) results") { () async throws(PushQueueError) in try await queue.complete(finals) }
            }
        } catch {
            log("relay: could not record \(finals.count) results (first \(finals[0].claim.pushID)#\(finals[0].claim.index)): \(error); "
                + "they will be sent again after their leases")
            return nil
        }
    }

    /// Counts and announces the results the queue kept (`ignoredPositions`, ascending, are the
    /// duplicates it did not).
    private func announce(_ report: CompletionReport, finals: [TargetCompletion], starts: [ContinuousClock.Instant]) {
        metrics.duplicateResults(report.duplicates)
        let end = ContinuousClock.now
        var ignored = report.ignoredPositions.makeIterator()
        var nextIgnored = ignored.next()
        var recorded: [RelayMetrics.Finished] = []
        recorded.reserveCapacity(finals.count)
        for (position, completion) in finals.enumerated() {
            if position == nextIgnored {
                nextIgnored = ignored.next()
                continue
            }
            let claim = completion.claim
            recorded.append(RelayMetrics.Finished(app: claim.app, platform: claim.target.platform,
                                                  outcome: completion.outcome, latency: end - starts[position]))
            if events.wantsResults {
                events.publish(.result(app: claim.app, pushID: claim.pushID, index: claim.index, target: claim.target,
                                       outcome: completion.outcome, content: claim.content))
            }
        }
        metrics.finished(recorded)
    }

    /// The queue says which completion finished each push: one per push, across nodes too; its
    /// status is read from the queue.
    private func announceFinished(_ pushIDs: Set<PushID>, finals: [TargetCompletion]) async {
        for pushID in pushIDs.sorted() {
            guard let app = finals.first(where: { $0.claim.pushID == pushID })?.claim.app,
                  let status = try? await queue.status(of: pushID, includeTargets: false),
                  announced.withLock({ $0.insert(pushID) }) else { continue }
            metrics.pushFinished()
            log("relay: push \(pushID) app=\(app) finished: \(status.sent) sent, \(status.failed) failed of \(status.targetCount)")
            events.publish(.pushFinished(app: app, status: status))
        }
    }

    /// Runs a queue write, again after 0.1, 0.2, 0.4, 0.8 and 1.6 s if it fails (Redis restarting, a
    /// connection to re-open): a batch holds many answers, and each one not recorded is sent
    /// again after its lease. Meanwhile the batch still counts as recording, so no more sends
    /// start beyond the `2 × concurrency` bound. Writing a batch twice is harmless: the queue
    /// keeps a target's first result and counts the second as a duplicate.
    private func persisting<T>(_ write: () async throws(PushQueueError) -> T) async throws(PushQueueError) -> T {
        var delay = Duration.milliseconds(100)
        while true {
            do {
                return try await write()
            } catch .closed {
                throw .closed
            } catch {
                if delay > .milliseconds(1600) || held.isStopping { throw error }
                try? await Task.sleep(for: delay)
                delay *= 2
            }
        }
    }

    /// A final result, or another attempt later (retryable, attempts left).
    private enum Decision {
        case final(TargetOutcome)
        case retry(TargetRetry)
    }

    private func decide(_ answer: SendAnswer, now: Date) -> Decision {
        let claim = answer.claim
        switch answer.attempt {
        case .sent(let status, let providerID, let attempts):
            return .final(TargetOutcome(status: .sent, httpStatus: status, providerID: providerID, attempts: claim.attempts + attempts, finishedAt: now))
        case .rejected(let status, let reason, let retryable, let prune, let attempts, let detail):
            let total = claim.attempts + attempts
            if retryable, total < maxAttempts {
                // Back to the queue: 1 s, 2 s, 4 s … (at most 60 s) after this round.
                let round = max(0, total - 1)
                let delay = min(60, 1 << min(round, 6))
                return .retry(TargetRetry(claim, attempts: total, lastError: [status.map(String.init), reason, detail].compactMap { $0 }.joined(separator: " "),
                                          notBefore: now.addingTimeInterval(TimeInterval(delay))))
            }
            return .final(TargetOutcome(status: .failed, httpStatus: status, reason: reason, tokenInvalid: prune, attempts: total, finishedAt: now))
        case .failed(let reason, _, let prune):
            return .final(TargetOutcome(status: .failed, reason: reason, tokenInvalid: prune, attempts: claim.attempts, finishedAt: now))
        }
    }
}

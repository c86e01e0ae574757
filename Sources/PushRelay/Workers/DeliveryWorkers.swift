import Foundation
import PushHTTP

/// The relay's sends, in three parts over one account of the targets this node holds
/// (`HeldTargets`): the `ClaimLoop` claims targets ahead and renews their leases, the
/// `WorkerPool` sends them (at most `concurrency` at once, each on its client's loop thread),
/// and the `ResultRecorder` writes the answers to the queue in batches. The parts wake each
/// other through `DeliverySignals`; a 25 ms tick covers a wake-up that no event brings.
///
/// Guarantees (docs/relay.md "Guarantees"):
/// - At least once: a target is completed only after a final answer (accepted, a never-retry
///   rejection, or attempts used up); a retryable failure goes back to the queue with a backoff,
///   so a crash at any point leaves it to be claimed again.
/// - Every claimed target is sent and its answer recorded, or given back to the queue (claimed
///   ahead, unsent at `stop`), or left to its lease when the queue fails; its lease is renewed
///   while it is held.
/// - Exactly one final result per target (the queue keeps the first; `ResultRecorder`).
/// - At most `2 × concurrency` sends in flight plus answers not yet recorded: what a crash can
///   make the relay send twice.
/// - `stop` takes no new send, waits until every send in flight has its result recorded (or
///   given up after the recorder's retries), then gives back what was claimed ahead.
final class DeliveryWorkers: Sendable {
    private let held: HeldTargets
    private let signals = DeliverySignals()
    private let pool: WorkerPool
    private let claimLoop: ClaimLoop
    private let recorder: ResultRecorder
    /// The queue calls pending (the state dump shows them) and how far `stop` has come.
    private let calls = PendingCalls()
    private let queue: any PushQueue
    private let lanes: [String: DeliveryLane]
    let progress: StopProgress
    private let tick = SanitizerVisibleMutex<Task<Void, Never>?>(nil)
    /// Wakes the recorder when answers have waited `gatherWait` and no send came back since to
    /// see it, and the claim loop in case a signal was missed: the waits on the send path have
    /// no timers of their own. (A Dispatch timer per wait cost each batch of results three
    /// context switches: arming it wakes Dispatch's timer thread, and it fires after the
    /// signal came anyway.)
    private static let tickInterval = Duration.milliseconds(25)

    init(queue: any PushQueue, senders: [String: AppSenders], budgets: [String: any SendBudget],
         fcmProjectBudgets: [String: any SendBudget] = [:], settings: RelayConfig.Workers,
         metrics: RelayMetrics, consumer: String, events: RelayEventFanOut, progress: StopProgress = StopProgress(),
         log: @escaping @Sendable (String) -> Void) {
        self.progress = progress
        self.queue = queue
        let lanes = senders.mapValues {
            DeliveryLane(senders: $0, budget: budgets[$0.app.name], fcmProjectBudget: fcmProjectBudgets[$0.app.name])
        }
        self.lanes = lanes
        held = HeldTargets(concurrency: settings.concurrency, streamOf: { [queue] in queue.stream(ofReceipt: $0) })
        pool = WorkerPool(held: held, lanes: lanes, signals: signals)
        claimLoop = ClaimLoop(queue: queue, held: held, pool: pool, signals: signals, consumer: consumer,
                              leaseSeconds: settings.leaseSeconds, calls: calls, log: log)
        recorder = ResultRecorder(queue: queue, held: held, pool: pool, signals: signals, maxAttempts: settings.maxAttempts,
                                  metrics: metrics, events: events, calls: calls, log: log)
    }

    func start() {
        claimLoop.start()
        recorder.start()
        let tick = Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: Self.tickInterval)
                guard let self else { return }
                self.tock()
            }
        }
        self.tick.withLock { $0 = tick }
    }

    /// The tick: the recorder if its answers are due by now, and the claim loop.
    private func tock() {
        if held.recorderDue(now: ContinuousClock.now) { signals.answersDue.signal() }
        signals.claimsLow.signal()
    }

    /// New work was queued: claim now instead of at the next poll.
    func poke() { signals.newWork.signal() }

    /// Stops claiming, waits until every send in flight has its result recorded, and gives the
    /// targets claimed ahead back to the queue.
    func stop() async {
        pool.stop()
        signals.newWork.signal()
        signals.claimsLow.signal()
        progress.enter("waiting for the claim loop to end")
        await claimLoop.finish()
        progress.enter("waiting for the sends in flight and their results")
        // The pool and the recorder signal `claimsLow` as sends end and batches are written.
        while held.unrecorded > 0 { await signals.claimsLow.wait(timeout: .milliseconds(50)) }
        progress.enter("writing the last results")
        await recorder.finish()
        tick.withLock({ $0 })?.cancel()
        claimLoop.stopRenewing()
        progress.enter("waiting for the workers to end")
        await pool.finish()
        progress.enter("giving back the targets claimed ahead")
        await claimLoop.giveBack()
    }

    /// The drain overran its bound (`pushlab relay`'s deadline): no send starts any more, and the
    /// targets claimed ahead and never sent go back to the queue now. Returns how many went
    /// back and what is left to the leases; the caller exits the process after it.
    func abandonDrain() async -> (givenBack: Int, leftToLease: Int, error: String?) {
        pool.stop()
        let before = held.snapshot
        let unsent = held.takeUnsent()
        let left = before.inFlight + before.recording
        guard !unsent.isEmpty else { return (0, left, nil) }
        do {
            try await calls.track("give back \(unsent.count) targets") {
                try await queue.reschedule(unsent.map { TargetRetry($0, attempts: $0.attempts, lastError: nil, notBefore: Date()) })
            }
            return (unsent.count, left, nil)
        } catch {
            return (0, left + unsent.count, "\(error)")
        }
    }

    /// The state dump's lines about the sends: the stop, the targets held by stage, the
    /// workers, the queue calls pending.
    func stateLines(now: ContinuousClock.Instant) -> [String] {
        let h = held.snapshot
        var lines = ["stop: " + progress.line(now: now)]
        lines.append("targets held: \(h.ready) claimed ahead (not sent), \(h.inFlight) sending, \(h.recording) answered and not yet "
                     + "recorded (\(h.answersWaiting) waiting for the recorder); \(h.claims) claims with leases renewed")
        lines.append("workers: \(h.workersStarted) started of \(held.concurrency), \(h.parkedWorkers) parked waiting for a target"
                     + (h.stopping ? "; no send starts (stopping)" : ""))
        let budgetWaits = lanes.keys.sorted().compactMap { app in
            lanes[app].map { $0.waitingForBudget > 0 ? "\(app) \($0.waitingForBudget)" : nil } ?? nil
        }
        lines.append("sending and waiting for a send budget (rate_per_minute): " + (budgetWaits.isEmpty ? "none" : budgetWaits.joined(separator: ", ")))
        let pending = calls.pending(now: now)
        lines.append("queue calls pending: " + (pending.isEmpty ? "none"
            : pending.map { "\($0.name) for \(RelayStateText.seconds($0.waited))" }.joined(separator: ", ")))
        return lines
    }

    var inFlight: Int { held.inFlight }
}

/// The three wake-ups between the parts of `DeliveryWorkers`. Each wait on the send path has no
/// timer of its own: whatever gives a loop something to do signals it.
struct DeliverySignals: Sendable {
    /// This node queued a push: the claim loop claims now instead of at its next poll.
    let newWork = Wakeup()
    /// The claimed targets run low (a worker took one, the tick), or during `stop` a send ended
    /// or a batch was written: the claim loop claims, `stop` looks whether the sends drained.
    let claimsLow = Wakeup()
    /// The answers waiting are due to be written (`HeldTargets.nextBatch`): the recorder writes.
    let answersDue = Wakeup()
}

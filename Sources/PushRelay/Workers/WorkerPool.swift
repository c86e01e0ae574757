import PushHTTP

/// The sends: up to `concurrency` long-lived tasks (workers), each holding one slot while it
/// sends, started as targets need them. A worker runs on the loop thread of the HTTP client it
/// sends with (`withTaskExecutorPreference`, `AppSenders.executor`), takes the next claimed
/// target there as soon as an answer is in and stays there while the targets go to the same
/// client: a send costs no task of its own and no hand-off between threads. A worker with
/// nothing to send parks until `handOut` (after a claim, or after a batch was recorded) gives it
/// a target.
///
/// Guarantees:
/// - Every target handed to a worker is sent (its budgets taken first) and comes to exactly one
///   `SendAnswer`, left to the recorder through `HeldTargets.answered`; a target of an app no
///   longer in relay.json comes to a final `UnknownApp` failure.
/// - At most `concurrency` sends at once, none beyond the `2 × concurrency` bound on sends plus
///   answers not yet recorded, and none after `stop` (`HeldTargets`).
/// - After `stop`, every worker ends once its send in flight is answered; `finish` waits for them.
final class WorkerPool: Sendable {
    private let held: HeldTargets
    /// By app: its clients and the budgets a send takes from.
    private let lanes: [String: DeliveryLane]
    private let signals: DeliverySignals
    private let prepared = PreparedContentCache()
    private let workers = SanitizerVisibleMutex<[Task<Void, Never>]>([])

    init(held: HeldTargets, lanes: [String: DeliveryLane], signals: DeliverySignals) {
        self.held = held
        self.lanes = lanes
        self.signals = signals
    }

    /// Hands claimed targets to parked workers, or to new ones, while slots are free and the
    /// answers waiting to be recorded leave room. Called by the claim loop after a claim and by
    /// the recorder after a batch.
    func handOut() {
        let out = held.handOut()
        for (worker, claim) in out.handed { worker.resume(returning: claim) }
        if !out.starting.isEmpty {
            // Each starts on the loop thread of the client its first target goes to.
            let started = out.starting.map { claim in
                Task(executorPreference: lanes[claim.app]?.executor(for: claim.target)) { await self.work(from: claim) }
            }
            workers.withLock { $0 += started }
        }
        if out.runningLow { signals.claimsLow.signal() }
    }

    /// No send starts from now on; parked workers end.
    func stop() {
        for worker in held.stop() { worker.resume(returning: nil) }
    }

    /// Waits for every worker to end (after `stop`).
    func finish() async {
        for worker in workers.withLock({ $0 }) { await worker.value }
    }

    /// One slot: sends claimed targets one after the other, each on the loop thread of the HTTP
    /// client that sends it, until `stop()`. It leaves that thread only when the next target goes
    /// to another client.
    private func work(from claim: ClaimedTarget) async {
        var next: ClaimedTarget? = claim
        while let first = next {
            let executor = lanes[first.app]?.executor(for: first.target)
            next = await withTaskExecutorPreference(executor) { () async -> ClaimedTarget? in
                var claim = first
                while true {
                    let lane = lanes[claim.app]
                    if let other = lane?.executor(for: claim.target), executor.map({ $0 !== other }) ?? true { return claim }
                    let answer = await process(claim, lane: lane)
                    guard let following = await take(after: answer) else { return nil }
                    claim = following
                }
            }
        }
    }

    /// Sends `claim` with its app's lane (budgets first, then the client).
    private func process(_ claim: ClaimedTarget, lane: DeliveryLane?) async -> SendAnswer {
        let start = ContinuousClock.now
        let attempt: SendAttempt
        if let lane {
            attempt = await lane.send(claim, prepared: prepared)
        } else {
            attempt = .failed(reason: RelayFailure.unknownApp.rawValue, detail: "app '\(claim.app)' is no longer in relay.json")
        }
        return SendAnswer(claim: claim, attempt: attempt, start: start)
    }

    /// Leaves `answer` (the worker's last send) to the recorder and takes the next claimed
    /// target, parking until one is handed over when none may start now; nil once the workers
    /// stop.
    private func take(after answer: SendAnswer) async -> ClaimedTarget? {
        let after = held.answered(answer, now: ContinuousClock.now)
        if after.wakeRecorder { signals.answersDue.signal() }
        // The claim loop needs this worker only when the claimed targets run low (room to
        // claim), or in `stop()`, when a send ends.
        if after.wakeClaimLoop { signals.claimsLow.signal() }
        if let next = after.next { return next }
        if after.stop { return nil }
        return await withCheckedContinuation { (worker: CheckedContinuation<ClaimedTarget?, Never>) in
            // Targets claimed or room made since `answered` are handed over at once.
            if let now = held.park(worker) { worker.resume(returning: now) }
        }
    }
}

/// A send's answer on its way to the recorder.
struct SendAnswer: Sendable {
    let claim: ClaimedTarget
    let attempt: SendAttempt
    /// When the send started (the latency histogram runs to the recorded result).
    let start: ContinuousClock.Instant
}

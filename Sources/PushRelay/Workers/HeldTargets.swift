import PushHTTP

/// The targets this node holds, by stage, shared by the claim loop, the worker pool and the
/// result recorder (`DeliveryWorkers` wires them). Each stage change is one step under one lock,
/// so a send's answer and the start of the next send are one critical section on the send path.
///
/// Guarantees:
/// - A claimed target is in exactly one stage until it is released: claimed ahead (`ready`),
///   being sent (`inFlight`: it waits for its app's budget first), or answered and waiting to be
///   recorded (`recording`). Its claim's receipt stays in `held` (leases renewed) until the
///   recorder released it or `stop` handed it back.
/// - At most `concurrency` sends at once, and at most `2 × concurrency` sends plus answers not
///   yet recorded: what a crash can make the relay send twice (docs/relay.md "Guarantees").
/// - Claims are asked for once fewer than `lowWater` (`concurrency`) wait, up to `3 ×
///   concurrency` claimed ahead or being sent (`2 × concurrency` ahead while every slot sends).
/// - Once stopping, no send starts and no target is handed to a worker.
final class HeldTargets: Sendable {
    let concurrency: Int
    /// The claim loop claims more once fewer targets than this wait (`concurrency`).
    let lowWater: Int
    /// The recorder writes once this many answers wait (half of `concurrency`), or after
    /// `gatherWait` with fewer while sends are in flight: fewer, larger commits. Half, not more:
    /// one batch being written and the next gathering then stay within `concurrency`, so the
    /// send bound (`2 × concurrency` sends plus answers not yet recorded) does not hold sends
    /// back; each `complete` has a fixed cost (on Redis about as much as 10–20 results), which
    /// a batch of 32 rather than 16 halves per result (issue 37).
    let recordBatch: Int
    let gatherWait = Duration.milliseconds(2)

    private struct State {
        /// Sends running (each holds a slot, a worker).
        var inFlight = 0
        /// Results being recorded (their sends are over): in `answers` or in the recorder's batch.
        var recording = 0
        /// Answers waiting for the recorder, and when the first of them came.
        var answers: [SendAnswer] = []
        var firstAnswerAt = ContinuousClock.now
        /// The recorder waits until the answers are due (it is signalled then, once).
        var recorderWaits = false
        /// Claimed, not yet sent; the next one is last.
        var ready: [ClaimedTarget] = []
        /// Workers waiting for a target (nil: stop).
        var idle: [CheckedContinuation<ClaimedTarget?, Never>] = []
        /// The workers started so far: one more each time a target may start and none is idle,
        /// up to `concurrency` (a relay that never needs its whole concurrency does not hold it).
        var workersStarted = 0
        var stopping = false
        /// Claims this node holds, by receipt (how many of their targets are still held).
        var held: [String: Int] = [:]

        /// Whether the answers waiting should be written now: a batch's worth, or no send in
        /// flight (no more are coming soon), or the first has waited `gatherWait`, or stopping.
        func answersDue(now: ContinuousClock.Instant, batch: Int, gatherWait: Duration) -> Bool {
            !answers.isEmpty && (answers.count >= batch || inFlight == 0 || stopping || now - firstAnswerAt >= gatherWait)
        }

        /// True once when the recorder waits and the answers are due: the caller signals it.
        mutating func recorderDue(now: ContinuousClock.Instant, batch: Int, gatherWait: Duration) -> Bool {
            guard recorderWaits, answersDue(now: now, batch: batch, gatherWait: gatherWait) else { return false }
            recorderWaits = false
            return true
        }

        /// One target of the claim `receipt` is no longer held.
        mutating func release(_ receipt: String) {
            guard let n = held[receipt] else { return }
            if n <= 1 { held.removeValue(forKey: receipt) } else { held[receipt] = n - 1 }
        }

        /// The next claimed target, counted in flight, when one may start now: not stopping, a
        /// slot free, and sends in flight plus answers not yet recorded under `2 × concurrency`.
        mutating func startNext(_ concurrency: Int) -> ClaimedTarget? {
            guard !stopping, inFlight < concurrency, inFlight + recording < 2 * concurrency, let next = ready.popLast() else { return nil }
            inFlight += 1
            return next
        }
    }
    /// `SanitizerVisibleMutex`: taken on the client loops, the claim loop and the recorder, and
    /// ThreadSanitizer must see those hand-overs (docs/hardening.md).
    private let state = SanitizerVisibleMutex(State())

    init(concurrency: Int) {
        self.concurrency = concurrency
        lowWater = max(1, concurrency)
        recordBatch = max(1, concurrency / 2)
    }

    var isStopping: Bool { state.withLock { $0.stopping } }

    /// The counts a state dump shows (`Relay.stateReport`), read in one step.
    struct Snapshot: Sendable {
        var ready = 0, inFlight = 0, recording = 0, answersWaiting = 0
        var parkedWorkers = 0, workersStarted = 0, claims = 0
        var stopping = false
    }

    var snapshot: Snapshot {
        state.withLock { s in
            Snapshot(ready: s.ready.count, inFlight: s.inFlight, recording: s.recording, answersWaiting: s.answers.count,
                     parkedWorkers: s.idle.count, workersStarted: s.workersStarted, claims: s.held.count, stopping: s.stopping)
        }
    }
    var inFlight: Int { state.withLock { $0.inFlight } }
    /// Sends in flight plus answers not yet recorded: `stop` drains them to zero.
    var unrecorded: Int { state.withLock { $0.inFlight + $0.recording } }
    /// The receipts of every claim with a target still held (their leases are renewed).
    var heldReceipts: [String] { state.withLock { Array($0.held.keys) } }

    // MARK: The claim loop's side

    /// How many targets to claim now: up to `3 × concurrency` claimed ahead or being sent,
    /// once fewer than `lowWater` wait (so a claim brings a batch rather than the one
    /// target a finished send made room for); 0 when enough wait.
    func roomToClaim() -> Int {
        let concurrency = self.concurrency, lowWater = self.lowWater
        return state.withLock { s in s.ready.count < lowWater ? 3 * concurrency - s.inFlight - s.ready.count : 0 }
    }

    /// `claims` came from the queue: held, and sent after the ones claimed before them.
    func claimed(_ claims: [ClaimedTarget]) {
        state.withLock { s in
            s.ready.insert(contentsOf: claims.reversed(), at: 0)
            for claim in claims { s.held[claim.receipt, default: 0] += 1 }
        }
    }

    /// Once stopped and drained: the targets claimed ahead and never sent, no longer held
    /// (the caller gives them back to the queue).
    func takeUnsent() -> [ClaimedTarget] {
        state.withLock { s in
            defer { s.ready = []; s.held = [:] }
            return s.ready
        }
    }

    // MARK: The worker pool's side

    /// What `handOut` may do now: targets for parked workers, targets that start a new worker
    /// each, and whether the claimed targets are running low (the claim loop is to claim).
    struct HandOut {
        var handed: [(worker: CheckedContinuation<ClaimedTarget?, Never>, claim: ClaimedTarget)] = []
        var starting: [ClaimedTarget] = []
        var runningLow = false
    }

    /// Starts every claimed target that may start now: to a parked worker, or to a new one
    /// while fewer than `concurrency` were started.
    func handOut() -> HandOut {
        let concurrency = self.concurrency, lowWater = self.lowWater
        return state.withLock { s in
            var out = HandOut()
            while !s.idle.isEmpty || s.workersStarted < concurrency, let next = s.startNext(concurrency) {
                if let worker = s.idle.popLast() {
                    out.handed.append((worker, next))
                } else {
                    s.workersStarted += 1
                    out.starting.append(next)
                }
            }
            out.runningLow = !(out.handed.isEmpty && out.starting.isEmpty) && s.ready.count < lowWater
            return out
        }
    }

    /// What a worker does after its send's answer: the next target, or stop, or park; and whom
    /// to wake (the recorder when the answers became due, the claim loop when targets run low).
    struct AfterAnswer {
        var next: ClaimedTarget?
        var stop: Bool
        var wakeRecorder: Bool
        var wakeClaimLoop: Bool
    }

    /// A send is over: its answer goes to the recorder and it leaves the sends in flight; the
    /// next claimed target starts on the same worker when one may.
    func answered(_ answer: SendAnswer, now: ContinuousClock.Instant) -> AfterAnswer {
        let concurrency = self.concurrency, lowWater = self.lowWater, recordBatch = self.recordBatch, gatherWait = self.gatherWait
        return state.withLock { s in
            s.inFlight -= 1
            s.recording += 1
            if s.answers.isEmpty { s.firstAnswerAt = now }
            s.answers.append(answer)
            let wakeRecorder = s.recorderDue(now: now, batch: recordBatch, gatherWait: gatherWait)
            if s.stopping { return AfterAnswer(next: nil, stop: true, wakeRecorder: wakeRecorder, wakeClaimLoop: true) }
            let next = s.startNext(concurrency)
            // Parking on the bound while enough targets are claimed needs no claim.
            return AfterAnswer(next: next, stop: false, wakeRecorder: wakeRecorder, wakeClaimLoop: s.ready.count < lowWater)
        }
    }

    /// Parks `worker` unless a target may start now (claimed or room made since `answered`) or
    /// the pool stops: then that target, or nil to stop, for the caller to resume it with.
    func park(_ worker: CheckedContinuation<ClaimedTarget?, Never>) -> ClaimedTarget?? {
        let concurrency = self.concurrency
        return state.withLock { s in
            if s.stopping { return .some(nil) }
            if let next = s.startNext(concurrency) { return .some(next) }
            s.idle.append(worker)
            return nil
        }
    }

    /// Stops handing out: no send starts from now on. Returns the parked workers (to resume
    /// with nil).
    func stop() -> [CheckedContinuation<ClaimedTarget?, Never>] {
        state.withLock { s in
            s.stopping = true
            defer { s.idle = [] }
            return s.idle
        }
    }

    // MARK: The recorder's side

    /// What the recorder does next.
    enum NextBatch {
        /// Write these answers.
        case write([SendAnswer])
        /// Wait until signalled: the answers are not due yet.
        case wait
        /// Stopping, nothing in flight, nothing left to write.
        case done
    }

    /// The answers waiting, once they are due (`State.answersDue`); else the recorder waits and
    /// is signalled once when they are.
    func nextBatch(now: ContinuousClock.Instant) -> NextBatch {
        let recordBatch = self.recordBatch, gatherWait = self.gatherWait
        return state.withLock { s in
            if s.answers.isEmpty, s.stopping, s.inFlight == 0 { return .done }
            guard s.answersDue(now: now, batch: recordBatch, gatherWait: gatherWait) else {
                s.recorderWaits = true
                return .wait
            }
            defer { s.answers = [] }
            return .write(s.answers)
        }
    }

    /// True once when the recorder waits and the answers are due by `now` (the tick's check).
    func recorderDue(now: ContinuousClock.Instant) -> Bool {
        let recordBatch = self.recordBatch, gatherWait = self.gatherWait
        return state.withLock { $0.recorderDue(now: now, batch: recordBatch, gatherWait: gatherWait) }
    }

    /// `batch` is written (or given up on): its targets leave the send bound and are no longer
    /// held. Returns whether the workers are stopping.
    func recorded(_ batch: [SendAnswer]) -> Bool {
        state.withLock { s in
            s.recording -= batch.count
            for answer in batch { s.release(answer.claim.receipt) }
            return s.stopping
        }
    }
}

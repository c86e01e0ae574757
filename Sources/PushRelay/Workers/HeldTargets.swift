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
/// - Answers gather per stream (`stream(ofReceipt:)`: a Redis Cluster's queue has one per master,
///   every other queue one), and a batch the recorder writes holds whole streams' gatherings, so
///   each `complete` call on N streams carries as many answers as on one (issue 37).
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
    /// The batch's worth is per stream: with N streams, each stream's call gathers `recordBatch`
    /// answers, not `recordBatch ÷ N` (each stream's `complete` pays the fixed cost).
    let recordBatch: Int
    let gatherWait = Duration.milliseconds(2)
    /// A stream whose first answer has waited this long is written with the next batch even while
    /// others are fuller (no stream's answers wait behind busier streams for long).
    let staleWait = Duration.milliseconds(16)
    /// Which stream a claim's receipt belongs to (0…): its answers are written in that stream's
    /// `complete` call.
    private let streamOf: @Sendable (String) -> Int

    private struct State {
        /// `2 × concurrency`: sends plus answers not yet recorded stay under it.
        let sendBound: Int
        /// Sends running (each holds a slot, a worker).
        var inFlight = 0
        /// Results being recorded (their sends are over): in `gathering` or in the recorder's batch.
        var recording = 0
        /// Answers waiting for the recorder, by stream, and when each stream's first came.
        var gathering: [Gathering] = [Gathering()]
        /// Answers waiting, over every stream.
        var waiting = 0
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

        /// Whether a stream's answers should be written now: a batch's worth, or no send in
        /// flight (no more are coming soon), or its first has waited `gatherWait`, or stopping, or
        /// the send bound holds sends back (answers gathering on several streams fill it before
        /// one stream's batch is full: the fullest stream is written then, and frees room).
        func due(_ g: Gathering, now: ContinuousClock.Instant, batch: Int, gatherWait: Duration) -> Bool {
            !g.answers.isEmpty
                && (g.answers.count >= batch || inFlight == 0 || stopping || now - g.firstAt >= gatherWait || inFlight + recording >= sendBound)
        }

        /// Whether some stream's answers are due.
        func answersDue(now: ContinuousClock.Instant, batch: Int, gatherWait: Duration) -> Bool {
            waiting > 0 && gathering.contains { due($0, now: now, batch: batch, gatherWait: gatherWait) }
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
            guard !stopping, inFlight < concurrency, inFlight + recording < sendBound, let next = ready.popLast() else { return nil }
            inFlight += 1
            return next
        }
    }
    /// `SanitizerVisibleMutex`: taken on the client loops, the claim loop and the recorder, and
    /// ThreadSanitizer must see those hand-overs (docs/hardening.md).
    private let state: SanitizerVisibleMutex<State>

    /// A stream's answers waiting for the recorder.
    struct Gathering {
        var answers: [SendAnswer] = []
        var firstAt = ContinuousClock.now
    }

    /// `streamOf`: the stream of a claim's receipt (`PushQueue.stream(ofReceipt:)`); one stream
    /// when not given.
    init(concurrency: Int, streamOf: @escaping @Sendable (String) -> Int = { _ in 0 }) {
        self.concurrency = concurrency
        lowWater = max(1, concurrency)
        recordBatch = max(1, concurrency / 2)
        self.streamOf = streamOf
        state = SanitizerVisibleMutex(State(sendBound: 2 * concurrency))
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
            Snapshot(ready: s.ready.count, inFlight: s.inFlight, recording: s.recording, answersWaiting: s.waiting,
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
        let stream = max(0, streamOf(answer.claim.receipt))
        return state.withLock { s in
            s.inFlight -= 1
            s.recording += 1
            while s.gathering.count <= stream { s.gathering.append(Gathering()) }
            if s.gathering[stream].answers.isEmpty { s.gathering[stream].firstAt = now }
            s.gathering[stream].answers.append(answer)
            s.waiting += 1
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

    /// The next send, when one may start now, for a worker the caller keeps itself rather than
    /// parking it here (what `park` does before it parks; `HeldTargetsTests` drive sends so).
    func startIfRoom() -> ClaimedTarget? {
        let concurrency = self.concurrency
        return state.withLock { $0.startNext(concurrency) }
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

    /// The answers to write now, whole streams' gatherings: every stream holding a batch's worth
    /// (the queue writes each in a call of its own, at once); else, of the streams whose answers
    /// are due (`State.due`), the one holding the most, while the others keep gathering during its
    /// write; with either, every stream whose first answer has waited `staleWait`. With one
    /// stream: its answers once due. Nothing due: the recorder waits and is signalled once when
    /// something is.
    func nextBatch(now: ContinuousClock.Instant) -> NextBatch {
        let recordBatch = self.recordBatch, gatherWait = self.gatherWait, staleWait = self.staleWait
        return state.withLock { s in
            if s.waiting == 0, s.stopping, s.inFlight == 0 { return .done }
            var take: [Int] = [], fullest: Int?
            for (k, g) in s.gathering.enumerated() where s.due(g, now: now, batch: recordBatch, gatherWait: gatherWait) {
                if g.answers.count >= recordBatch || now - g.firstAt >= staleWait {
                    take.append(k)
                } else if fullest.map({ g.answers.count > s.gathering[$0].answers.count }) ?? true {
                    fullest = k
                }
            }
            if take.isEmpty, let fullest { take = [fullest] }
            guard !take.isEmpty else {
                s.recorderWaits = true
                return .wait
            }
            if take.count == 1 {
                defer { s.waiting -= s.gathering[take[0]].answers.count; s.gathering[take[0]].answers = [] }
                return .write(s.gathering[take[0]].answers)
            }
            var out: [SendAnswer] = []
            for k in take {
                out += s.gathering[k].answers
                s.gathering[k].answers = []
            }
            s.waiting -= out.count
            return .write(out)
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

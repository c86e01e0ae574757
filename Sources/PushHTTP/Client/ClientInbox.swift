import CPushLab
import Synchronization

/// The only state shared between callers' tasks and the client's loop thread (libcurl's
/// `CurlMultiLoop` or `NGHTTP2Loop`). Everything in `State` is protected by `state`'s mutex;
/// request ids come from an atomic counter.
final class ClientInbox: Sendable {
    struct State {
        /// Submitted, not yet handed to the loop's HTTP library. Swapped out wholesale by the
        /// loop.
        var submissions: [TransferSubmission] = []
        /// Ids whose tasks were cancelled; the loop drops their transfers or streams if still active.
        var cancellations: [UInt64] = []
        /// Jobs of tasks that prefer the loop as their executor, enqueued from other threads.
        var jobs: [UnownedJob] = []
        var stopMode: LoopStopMode?
        /// Nil once the loop has cleaned up (its multi handle, or its eventfd).
        var wakeHandle: MultiWakeHandle?
        /// True while the loop sleeps (or is about to: curl_multi_poll, epoll_wait) with nothing
        /// queued. Only then does a submission need a wakeup (a syscall); a busy loop drains
        /// the queue before it sleeps again. The first waker clears it, so one wakeup serves
        /// every submission queued meanwhile.
        var loopAsleep = false
        /// When the loop last went to sleep, and what it held then (`mayPoll`): for `loopState`.
        var sleptAtNanos: UInt64 = 0
        var sleepInFlight: Int?
        var sleepNextTimerNanos: UInt64?
        var missedWakeups = 0
        var stats = HTTPClientStats()
        var finished = false
        var finishWaiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state: SanitizerVisibleMutex<State>
    private let ids = Atomic<UInt64>(0)
    /// curl_multi_perform calls made with the connections corked (for tests: the batched
    /// path really ran).
    let corkedTurns = Atomic<Int>(0)

    init(wakeHandle: MultiWakeHandle) {
        state = SanitizerVisibleMutex(State(wakeHandle: wakeHandle))
    }

    func nextID() -> UInt64 { ids.wrappingAdd(1, ordering: .relaxed).newValue }

    var stats: HTTPClientStats { state.withLock { $0.stats } }

    // MARK: caller side (any task)

    /// Queues `submission` for the loop, or fails it at once when the client is stopping or
    /// the calling task is already cancelled. Runs on the submitting task, so `Task.isCancelled`
    /// is that task's flag: the flag is set before a cancellation handler runs, and the handler
    /// takes this same lock, so a cancellation either is seen here or arrives after the
    /// submission in the inbox — never lost in between.
    func submit(_ submission: TransferSubmission) {
        let rejection: HTTPClientError? = state.withLock { s in
            if s.stopMode != nil || s.finished { return .shutDown }
            if Task.isCancelled { return .cancelled }
            s.submissions.append(submission)
            wakeIfAsleep(&s)
            return nil
        }
        if let rejection { submission.continuation.resume(throwing: rejection) }
    }

    /// Queues a job for the loop thread (`ClientLoopExecutor`); false once the loop has finished
    /// (the caller then runs it elsewhere).
    func enqueue(job: UnownedJob) -> Bool {
        state.withLock { s in
            if s.finished { return false }
            s.jobs.append(job)
            wakeIfAsleep(&s)
            return true
        }
    }

    func cancel(id: UInt64) {
        state.withLock { s in
            guard !s.finished else { return }
            s.cancellations.append(id)
            wakeIfAsleep(&s)
        }
    }

    /// Asks the loop to stop and returns the submissions it never saw, for the caller to fail.
    func beginStop(_ mode: LoopStopMode) -> [TransferSubmission] {
        state.withLock { s in
            if s.stopMode != .abortInFlight { s.stopMode = mode }
            let queued = s.submissions
            s.submissions.removeAll()
            // Always: the loop may be between its last drain and its sleep.
            s.loopAsleep = false
            s.wakeHandle?.wake()
            return queued
        }
    }

    func waitUntilFinished() async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let done = state.withLock { s in
                if s.finished { return true }
                s.finishWaiters.append(c)
                return false
            }
            if done { c.resume() }
        }
    }

    private func wakeIfAsleep(_ s: inout State) {
        guard s.loopAsleep, let handle = s.wakeHandle else { return }
        s.loopAsleep = false
        handle.wake()
    }

    // MARK: loop side (the loop thread only)

    /// Moves everything queued into the loop's buffers, after anything they still hold
    /// (swapping arrays keeps both capacities, so steady traffic allocates nothing here), and
    /// returns the stop mode, if any.
    func drain(submissions: inout [TransferSubmission], cancellations: inout [UInt64],
               jobs: inout [UnownedJob]) -> LoopStopMode? {
        state.withLock { s in
            Self.move(&s.submissions, into: &submissions)
            Self.move(&s.cancellations, into: &cancellations)
            Self.move(&s.jobs, into: &jobs)
            s.loopAsleep = false
            return s.stopMode
        }
    }

    /// Swaps when `target` is empty (the usual case), else appends after what it holds.
    private static func move<T>(_ source: inout [T], into target: inout [T]) {
        if target.isEmpty {
            swap(&source, &target)
        } else {
            target.append(contentsOf: source)
            source.removeAll(keepingCapacity: true)
        }
    }

    /// Called by the loop before it sleeps: false when work is already queued (drain it
    /// instead), otherwise marks the loop asleep so the next submission wakes it. The nghttp2
    /// loop passes what it holds (requests in flight, its next deadline) for `loopState`.
    func mayPoll(inFlight: Int? = nil, nextTimerNanos: UInt64? = nil) -> Bool {
        state.withLock { s in
            guard s.submissions.isEmpty && s.cancellations.isEmpty && s.jobs.isEmpty else { return false }
            s.loopAsleep = true
            s.sleptAtNanos = cpl_h2c_now_ns()
            s.sleepInFlight = inFlight
            s.sleepNextTimerNanos = nextTimerNanos
            return true
        }
    }

    /// Called by the nghttp2 loop when a sleep without a deadline ran out its cap. Counts a
    /// missed wake-up when the loop held work it had taken (`heldWork`) or work was queued
    /// while it still counted as asleep (no waker saw it asleep): both mean a wake-up was lost.
    func cappedSleepEnded(heldWork: Bool) {
        state.withLock { s in
            let queuedUnseen = s.loopAsleep && !(s.submissions.isEmpty && s.cancellations.isEmpty && s.jobs.isEmpty)
            if heldWork || queuedUnseen { s.missedWakeups += 1 }
        }
    }

    /// What the loop is doing now (`HTTPClientLoopState`).
    func loopState() -> HTTPClientLoopState {
        let now = cpl_h2c_now_ns()
        return state.withLock { s in
            var out = HTTPClientLoopState()
            out.asleep = s.loopAsleep
            if s.loopAsleep && s.sleptAtNanos > 0 { out.asleepMilliseconds = Int((now &- s.sleptAtNanos) / 1_000_000) }
            out.queuedRequests = s.submissions.count
            out.queuedCancellations = s.cancellations.count
            out.queuedJobs = s.jobs.count
            out.inFlight = s.sleepInFlight
            if let next = s.sleepNextTimerNanos { out.nextTimerMilliseconds = next > now ? Int((next - now) / 1_000_000) : 0 }
            out.missedWakeups = s.missedWakeups
            out.stopping = s.stopMode != nil
            out.finished = s.finished
            return out
        }
    }

    func record(completed: Int, failed: Int, connectionsOpened: Int) {
        state.withLock { s in
            s.stats.requestsCompleted += completed
            s.stats.requestsFailed += failed
            s.stats.connectionsOpened += connectionsOpened
        }
    }

    /// Called by the loop just before it cleans up (`curl_multi_cleanup`, or closing its
    /// eventfd): no wakeup may touch the handle after this returns. Returns the submissions that raced in, for the loop to fail, and the
    /// jobs it will not run.
    func markFinished() -> (late: [TransferSubmission], jobs: [UnownedJob], waiters: [CheckedContinuation<Void, Never>]) {
        state.withLock { s in
            s.finished = true
            s.wakeHandle = nil
            let late = s.submissions
            s.submissions.removeAll()
            let jobs = s.jobs
            s.jobs.removeAll()
            let waiters = s.finishWaiters
            s.finishWaiters.removeAll()
            return (late, jobs, waiters)
        }
    }
}

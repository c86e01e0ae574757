import Foundation
import PushCore
import PushHTTP
import PushSend

/// Claims targets from the queue and sends them with the app's clients, at most
/// `concurrency` at once. A target is completed only after a final answer (accepted, a
/// never-retry rejection, or attempts used up); a retryable failure goes back to the queue
/// with a backoff, so a crash at any point leaves it to be claimed again (at least once).
///
/// Up to `concurrency` long-lived send tasks (workers), each holding one slot while it sends,
/// started as targets need them. A worker runs on the loop thread of the HTTP client it sends
/// with (`withTaskExecutorPreference`), takes the next claimed target there as soon as an
/// answer is in and stays there while the targets go to the same client: a send costs no task
/// of its own and no hand-off between threads. A worker with nothing to send parks until the
/// claim loop or the recorder hands it a target.
///
/// Two waits stay off the send path, so the sends in flight stay at `concurrency` while the
/// queue commits: targets are claimed ahead (up to `2 × concurrency` more than are being sent,
/// a claim asked for once fewer than `concurrency` wait, so it arrives before they run out even
/// when it waits behind a commit), and a worker moves on to the next claimed target as soon as
/// the answer is in, while its result is recorded durably beside it. One recorder writes the
/// answers that came in meanwhile in one `complete` (and one `reschedule`), letting a few gather
/// first, so a result costs the queue one batch's share, not a write of its own. Sends in flight plus answers not yet recorded stay at most
/// `2 × concurrency`: what a crash can make the relay send twice (docs/relay.md "Guarantees").
/// Every claim held (claimed ahead, being sent — a send waits for its app's budget first — or
/// waiting to be recorded) has its lease renewed every third of a lease, so a low
/// `rate_per_minute` never lets a held target's lease run out and hands it out again.
final class DeliveryWorkers: Sendable {
    private let queue: any PushQueue
    /// By app: its clients and the budgets a send takes from.
    private let lanes: [String: Lane]
    private let settings: RelayConfig.Workers
    private let metrics: RelayMetrics
    private let events: @Sendable (RelayEvent) -> Void
    /// False when nothing listens for `.result` events (no webhook, no observer): they are not made.
    private let announcesResults: Bool
    private let log: @Sendable (String) -> Void
    private let consumer: String
    private let wakeup = Wakeup()
    private let slotFreed = Wakeup()
    /// Signalled when the answers waiting are due to be written (`State.answersDue`).
    private let answersWaiting = Wakeup()
    private let prepared = PreparedContentCache()
    /// The loop claims more once fewer targets than this wait (`concurrency`), up to
    /// `2 × concurrency` claimed beyond the sends in flight.
    private let lowWater: Int
    /// The recorder writes once this many answers wait (a quarter of `concurrency`), or after
    /// `gatherWait` with fewer while sends are in flight: fewer, larger commits.
    private let recordBatch: Int
    private let gatherWait = Duration.milliseconds(2)
    /// Wakes the recorder when answers have waited `gatherWait` and no send came back since to
    /// see it, and the claim loop in case a signal was missed: the waits on the send path have
    /// no timers of their own. (A Dispatch timer per wait cost each batch of results three
    /// context switches: arming it wakes Dispatch's timer thread, and it fires after the
    /// signal came anyway.)
    private static let tickInterval = Duration.milliseconds(25)

    /// One app's clients and budgets, looked up once per send.
    private final class Lane: Sendable {
        let senders: AppSenders
        let budget: (any SendBudget)?
        /// Its Firebase project's FCM budget, one object for every app on that project.
        let fcmProjectBudget: (any SendBudget)?
        /// Where its APNs and its FCM sends run (`AppSenders.executor`).
        let apnsExecutor: any TaskExecutor
        let fcmExecutor: any TaskExecutor

        init(senders: AppSenders, budget: (any SendBudget)?, fcmProjectBudget: (any SendBudget)?) {
            self.senders = senders
            self.budget = budget
            self.fcmProjectBudget = fcmProjectBudget
            apnsExecutor = senders.executor(forAPNs: true)
            fcmExecutor = senders.executor(forAPNs: false)
        }

        func executor(for target: PushTarget) -> any TaskExecutor { target.kind == .apnsToken ? apnsExecutor : fcmExecutor }
    }

    private struct State {
        /// Sends running (each holds a slot, a worker).
        var inFlight = 0
        /// Results being recorded (their sends are over): in `answers` or in the recorder's batch.
        var recording = 0
        /// Answers waiting for the recorder, and when the first of them came.
        var answers: [Answer] = []
        var firstAnswerAt = ContinuousClock.now
        /// The recorder waits until the answers are due (it is signalled then, once).
        var recorderWaits = false
        /// Claimed, not yet sent; the next one is last.
        var ready: [ClaimedTarget] = []
        /// Workers waiting for a target (nil: stop).
        var idle: [CheckedContinuation<ClaimedTarget?, Never>] = []
        var stopping = false
        var loop: Task<Void, Never>?
        var recorder: Task<Void, Never>?
        var tick: Task<Void, Never>?
        /// The workers started so far: one more each time a target may start and none is idle,
        /// up to `concurrency` (a relay that never needs its whole concurrency does not hold it).
        var workers: [Task<Void, Never>] = []
        var workersStarted = 0
        /// Claims this node holds, by receipt (how many targets each): claimed ahead, being sent
        /// (a send waits for its app's budget first) or waiting to be recorded. Their leases are
        /// renewed every third of a lease, so a target that waits longer than a lease (a low
        /// `rate_per_minute`) is not claimed again and sent twice.
        var held: [String: Int] = [:]
        var renewer: Task<Void, Never>?

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
    /// Pushes whose `push_finished` was announced: two targets of one push can finish at the same
    /// moment and both see the push finished, but it is announced once. The newest 10,000 ids.
    private let announced = SanitizerVisibleMutex(AnnouncedPushes())

    init(queue: any PushQueue, senders: [String: AppSenders], budgets: [String: any SendBudget],
         fcmProjectBudgets: [String: any SendBudget] = [:], settings: RelayConfig.Workers,
         metrics: RelayMetrics, consumer: String, events: @escaping @Sendable (RelayEvent) -> Void, announcesResults: Bool = true,
         log: @escaping @Sendable (String) -> Void) {
        self.queue = queue
        lanes = senders.mapValues { Lane(senders: $0, budget: budgets[$0.app.name], fcmProjectBudget: fcmProjectBudgets[$0.app.name]) }
        self.settings = settings
        lowWater = max(1, settings.concurrency)
        recordBatch = max(1, settings.concurrency / 4)
        self.metrics = metrics
        self.consumer = consumer
        self.events = events
        self.announcesResults = announcesResults
        self.log = log
    }

    func start() {
        let loop = Task { await self.run() }
        // On the queue's writer thread, when it has one: the batch goes to the writer and its
        // answer comes back with no thread switch.
        let recorder = Task(executorPreference: queue.writerExecutor) { await self.recordAnswers() }
        let tick = Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: Self.tickInterval)
                guard let self else { return }
                self.tock()
            }
        }
        let renewer = Task { [weak self] in
            guard let lease = self.map({ Duration.seconds($0.settings.leaseSeconds) }) else { return }
            let every = max(Duration.milliseconds(500), lease / 3)
            while !Task.isCancelled {
                try? await Task.sleep(for: every)
                guard let self else { return }
                await self.renewLeases(lease)
            }
        }
        state.withLock { s in
            s.loop = loop
            s.recorder = recorder
            s.tick = tick
            s.renewer = renewer
        }
    }

    /// Extends the leases of every claim this node still holds (`State.held`).
    private func renewLeases(_ lease: Duration) async {
        let receipts = state.withLock { Array($0.held.keys) }
        guard !receipts.isEmpty else { return }
        do {
            try await queue.renew(receipts: receipts, lease: lease)
        } catch {
            log("relay: could not renew the leases of \(receipts.count) claims: \(error); retrying in a third of a lease")
        }
    }

    /// The tick: the recorder if its answers are due by now, and the claim loop.
    private func tock() {
        let (recordBatch, gatherWait) = (self.recordBatch, self.gatherWait)
        let now = ContinuousClock.now
        if state.withLock({ $0.recorderDue(now: now, batch: recordBatch, gatherWait: gatherWait) }) { answersWaiting.signal() }
        slotFreed.signal()
    }

    /// New work was queued: claim now instead of at the next poll.
    func poke() { wakeup.signal() }

    /// Stops claiming, waits until every send in flight has its result recorded, and gives the
    /// targets claimed ahead back to the queue.
    func stop() async {
        let (loop, idle) = state.withLock { s in
            s.stopping = true
            defer { s.idle = [] }
            return (s.loop, s.idle)
        }
        for worker in idle { worker.resume(returning: nil) }
        wakeup.signal()
        slotFreed.signal()
        await loop?.value
        while state.withLock({ $0.inFlight + $0.recording }) > 0 { await slotFreed.wait(timeout: .milliseconds(50)) }
        answersWaiting.signal()
        await state.withLock({ $0.recorder })?.value
        state.withLock({ $0.tick })?.cancel()
        state.withLock({ $0.renewer })?.cancel()
        for worker in state.withLock({ $0.workers }) { await worker.value }
        let unsent = state.withLock { s in
            defer { s.ready = []; s.held = [:] }
            return s.ready
        }
        if !unsent.isEmpty {
            do {
                try await queue.reschedule(unsent.map { TargetRetry($0, attempts: $0.attempts, lastError: nil, notBefore: Date()) })
            } catch {
                log("relay: could not give back \(unsent.count) claimed targets: \(error); they are sent after their lease")
            }
        }
    }

    var inFlight: Int { state.withLock { $0.inFlight } }

    private func run() async {
        let lease = Duration.seconds(settings.leaseSeconds)
        let concurrency = settings.concurrency
        while !state.withLock({ $0.stopping }) {
            handOut()
            // Room to claim: up to `2 × concurrency` targets waiting beyond the sends in flight,
            // claimed once fewer than `lowWater` wait, so a claim brings a batch rather than
            // the one target a finished send made room for.
            let room = state.withLock { s in s.ready.count < lowWater ? 3 * concurrency - s.inFlight - s.ready.count : 0 }
            if room <= 0 {
                // Signalled when the claimed targets run low (and by the tick).
                await slotFreed.wait()
                continue
            }
            let claims: [ClaimedTarget]
            // Whole units of the queue's claim (the Redis queue's chunks) when there is room
            // for one: a claim of another size splits a chunk, which costs the queue a write.
            let granularity = queue.claimGranularity
            let limit = room >= granularity ? min(room, 512) / granularity * granularity : min(room, 512)
            do {
                claims = try await queue.claim(consumer: consumer, limit: max(1, limit), lease: lease)
            } catch {
                log("relay: claim failed: \(error); retrying in 1 s")
                await wakeup.wait(timeout: .seconds(1))
                continue
            }
            if claims.isEmpty {
                // Nothing ready in the queue: claiming again as each send ends would only ask
                // again; new work pokes, a retry's time comes (`idleWait`).
                await wakeup.wait(timeout: await idleWait())
                continue
            }
            state.withLock { s in
                s.ready.insert(contentsOf: claims.reversed(), at: 0)
                for claim in claims { s.held[claim.receipt, default: 0] += 1 }
            }
        }
    }

    /// Hands claimed targets to idle workers while slots are free and the answers waiting to be
    /// recorded leave room.
    private func handOut() {
        let concurrency = settings.concurrency, lowWater = self.lowWater
        let (handed, starting, runningLow) = state.withLock { s in
            var handed: [(CheckedContinuation<ClaimedTarget?, Never>, ClaimedTarget)] = []
            var starting: [ClaimedTarget] = []
            while !s.idle.isEmpty || s.workersStarted < concurrency, let next = s.startNext(concurrency) {
                if let worker = s.idle.popLast() {
                    handed.append((worker, next))
                } else {
                    s.workersStarted += 1
                    starting.append(next)
                }
            }
            return (handed, starting, !(handed.isEmpty && starting.isEmpty) && s.ready.count < lowWater)
        }
        for (worker, claim) in handed { worker.resume(returning: claim) }
        if !starting.isEmpty {
            // Each starts on the loop thread of the client its first target goes to.
            let started = starting.map { claim in
                Task(executorPreference: lanes[claim.app]?.executor(for: claim.target)) { await self.work(from: claim) }
            }
            state.withLock { $0.workers += started }
        }
        if runningLow { slotFreed.signal() }
    }

    /// One slot: sends claimed targets one after the other, each on the loop thread of the HTTP
    /// client that sends it (`AppSenders.executor`), until `stop()`. It leaves that thread only
    /// when the next target goes to another client.
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

    /// Leaves `answer` (the worker's last send) to the recorder and takes the next claimed
    /// target, parking until one is handed over when none may start now; nil once the workers
    /// stop.
    private func take(after answer: Answer) async -> ClaimedTarget? {
        let concurrency = settings.concurrency, lowWater = self.lowWater, recordBatch = self.recordBatch, gatherWait = self.gatherWait
        let now = ContinuousClock.now
        let (next, stop, wakeRecorder, wakeLoop): (ClaimedTarget?, Bool, Bool, Bool) = state.withLock { s in
            s.inFlight -= 1
            s.recording += 1
            if s.answers.isEmpty { s.firstAnswerAt = now }
            s.answers.append(answer)
            let wakeRecorder = s.recorderDue(now: now, batch: recordBatch, gatherWait: gatherWait)
            if s.stopping { return (nil, true, wakeRecorder, true) }
            if let next = s.startNext(concurrency) { return (next, false, wakeRecorder, s.ready.count < lowWater) }
            // Parking on the bound while enough targets are claimed needs no claim.
            return (nil, false, wakeRecorder, s.ready.count < lowWater)
        }
        if wakeRecorder { answersWaiting.signal() }
        // The loop needs this worker only when the claimed targets run low (room to claim), or
        // in `stop()`, when a send ends.
        if wakeLoop { slotFreed.signal() }
        if let next { return next }
        if stop { return nil }
        return await withCheckedContinuation { (worker: CheckedContinuation<ClaimedTarget?, Never>) in
            // Targets claimed or room made since the look above are handed over at once.
            let now: (ClaimedTarget?, Bool)? = state.withLock { s in
                if s.stopping { return (nil, true) }
                if let next = s.startNext(concurrency) { return (next, false) }
                s.idle.append(worker)
                return nil
            }
            if let now { worker.resume(returning: now.0) }
        }
    }

    /// Until the next retry is due, at most 250 ms (another node may queue work too).
    private func idleWait() async -> Duration {
        guard let next = try? await queue.nextReadyDate() else { return .milliseconds(250) }
        let seconds = next.timeIntervalSinceNow
        if seconds <= 0 { return .milliseconds(1) }
        return .milliseconds(min(250, Int(seconds * 1000) + 1))
    }

    /// Sends `claim`: its budgets first, then the app's client.
    private func process(_ claim: ClaimedTarget, lane: Lane?) async -> Answer {
        let start = ContinuousClock.now
        let attempt: SendAttempt
        if let lane {
            await lane.budget?.take()
            if !claim.target.isAPNs { await lane.fcmProjectBudget?.take() }
            attempt = await send(claim, with: lane.senders)
        } else {
            attempt = .failed(reason: RelayFailure.unknownApp.rawValue, detail: "app '\(claim.app)' is no longer in relay.json")
        }
        return Answer(claim: claim, attempt: attempt, start: start)
    }

    /// The recorder: writes the answers waiting, batch after batch, until `stop()` has no send
    /// in flight. It writes once they are due (`State.answersDue`): while sends are in flight it
    /// lets up to `recordBatch` gather for `gatherWait`, so one commit carries many results and
    /// the queue's cost per commit (its transaction, the WAL pages it writes) is shared by them.
    /// Until then it waits with no timer: the worker whose answer makes them due signals it, or
    /// the tick when no answer comes meanwhile (so an answer waits at most `gatherWait` while
    /// others come in, one `tickInterval` when none does). The answers gathering count against
    /// the send bound like the ones being written.
    private func recordAnswers() async {
        let (recordBatch, gatherWait) = (self.recordBatch, self.gatherWait)
        while true {
            let now = ContinuousClock.now
            let batch: [Answer]? = state.withLock { s in
                if s.answers.isEmpty, s.stopping, s.inFlight == 0 { return nil }
                guard s.answersDue(now: now, batch: recordBatch, gatherWait: gatherWait) else {
                    s.recorderWaits = true
                    return []
                }
                defer { s.answers = [] }
                return s.answers
            }
            guard let batch else { return }
            if batch.isEmpty {
                await answersWaiting.wait()
                continue
            }
            await record(batch)
        }
    }

    /// `count` answers are written (or given up on): they leave the send bound, and parked
    /// workers may take their room.
    private func written(_ batch: [Answer]) {
        let stopping = state.withLock { s in
            s.recording -= batch.count
            for answer in batch { s.release(answer.claim.receipt) }
            return s.stopping
        }
        handOut()
        // `stop()` waits for the last results; the claim loop does not wait on recording.
        if stopping { slotFreed.signal() }
    }

    private func send(_ claim: ClaimedTarget, with senders: AppSenders) async -> SendAttempt {
        guard let content = prepared.content(for: claim) else {
            return .failed(reason: RelayFailure.badContent.rawValue, detail: "the queued content of push \(claim.pushID) cannot be read")
        }
        switch claim.target.kind {
        case .apnsToken:
            guard let sender = senders.apnsSender(for: claim.target.environment) else {
                return .failed(reason: RelayFailure.noAPNsCredentials.rawValue, detail: "app '\(claim.app)' has no apns section")
            }
            let result: APNsSendResult
            // The client and the prepared push are used where they are held (both in objects
            // shared by every send), not copied per target.
            switch content.apns {
            case .success(let push)?: result = await sender.client.send(push, to: claim.target.value, index: UInt64(claim.index))
            case .failure(let e)?: return .failed(reason: e.wouldBeRejectedAs?.rawValue ?? RelayFailure.preflightFailed.rawValue, detail: "\(e)")
            case nil: return .failed(reason: RelayFailure.noAPNsPayload.rawValue, detail: "push \(claim.pushID) has no APNs payload")
            }
            switch result.outcome {
            case .accepted(let a):
                return .sent(status: 200, providerID: a.apnsID, attempts: result.attempts)
            case .rejected(let r):
                return .rejected(status: r.status, reason: r.reasonName, retryable: r.retryability.isRetryable,
                                 prune: r.reason?.prunesToken ?? false, attempts: result.attempts)
            case .failed(let e):
                return .rejected(status: nil, reason: result.report.reason ?? RelayFailure.transportError.rawValue, retryable: true, prune: false,
                                 attempts: max(1, result.attempts), detail: e.description)
            case .notSent(let why, let reason):
                return .failed(reason: reason, detail: why, prune: reason == APNsReason.badDeviceToken.rawValue)
            }
        case .fcmToken, .fcmTopic, .fcmCondition:
            guard let client = senders.fcmClient, let message = content.fcm else {
                return .failed(reason: RelayFailure.noFCMCredentials.rawValue, detail: "app '\(claim.app)' has no fcm section or the push no FCM message")
            }
            let target: FCMTarget = claim.target.kind == .fcmToken ? .token(claim.target.value)
                : claim.target.kind == .fcmTopic ? .topic(claim.target.value) : .condition(claim.target.value)
            let result = await client.send(message, to: target, index: UInt64(claim.index))
            switch result.outcome {
            case .accepted(let name):
                return .sent(status: 200, providerID: name, attempts: result.attempts)
            case .rejected(let e):
                return .rejected(status: e.httpStatus, reason: e.reasonName, retryable: e.retryability.isRetryable,
                                 prune: e.prunesToken, attempts: result.attempts)
            case .failed(let e):
                return .rejected(status: nil, reason: result.report.reason ?? RelayFailure.transportError.rawValue, retryable: true, prune: false,
                                 attempts: max(1, result.attempts), detail: e.description)
            case .notSent(let why, let reason):
                return .failed(reason: reason, detail: why)
            case .noAccessToken(let e):
                return .rejected(status: nil, reason: result.report.reason ?? RelayFailure.accessTokenError.rawValue, retryable: true, prune: false,
                                 attempts: max(1, result.attempts), detail: e.description)
            }
        }
    }

    /// Records a batch of answers: final results in one `complete`, retryable failures back to
    /// the queue in one `reschedule`; then, with the batch out of the send bound, metrics,
    /// events and the pushes they finished (whose status is read from the queue).
    private func record(_ batch: [Answer]) async {
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
        if !retries.isEmpty {
            do {
                try await persisting { () async throws(PushQueueError) in try await queue.reschedule(retries) }
                for retry in retries { metrics.retried(app: retry.claim.app, platform: retry.claim.target.platform) }
            } catch {
                log("relay: could not reschedule \(retries.count) targets (first \(retries[0].claim.pushID)#\(retries[0].claim.index)): \(error); "
                    + "their leases will run out and they are sent again")
            }
        }
        var written: CompletionReport?
        if !finals.isEmpty {
            do {
                written = try await persisting { () async throws(PushQueueError) in try await queue.complete(finals) }
            } catch {
                log("relay: could not record \(finals.count) results (first \(finals[0].claim.pushID)#\(finals[0].claim.index)): \(error); "
                    + "they will be sent again after their leases")
            }
        }
        self.written(batch)
        guard let report = written else { return }
        metrics.duplicateResults(report.duplicates)
        // Only the recorded results count and are announced; `ignoredPositions` ascends.
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
            if announcesResults {
                events(.result(app: claim.app, pushID: claim.pushID, index: claim.index, target: claim.target, outcome: completion.outcome,
                               content: claim.content))
            }
        }
        metrics.finished(recorded)
        // The queue says which completion finished each push: one per push, across nodes too.
        for pushID in report.finishedPushes.sorted() {
            guard let app = finals.first(where: { $0.claim.pushID == pushID })?.claim.app,
                  let status = try? await queue.status(of: pushID, includeTargets: false),
                  announced.withLock({ $0.insert(pushID) }) else { continue }
            metrics.pushFinished()
            log("relay: push \(pushID) app=\(app) finished: \(status.sent) sent, \(status.failed) failed of \(status.targetCount)")
            events(.pushFinished(app: app, status: status))
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
                if delay > .milliseconds(1600) || state.withLock({ $0.stopping }) { throw error }
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

    private func decide(_ answer: Answer, now: Date) -> Decision {
        let claim = answer.claim
        switch answer.attempt {
        case .sent(let status, let providerID, let attempts):
            return .final(TargetOutcome(status: .sent, httpStatus: status, providerID: providerID, attempts: claim.attempts + attempts, finishedAt: now))
        case .rejected(let status, let reason, let retryable, let prune, let attempts, let detail):
            let total = claim.attempts + attempts
            if retryable, total < settings.maxAttempts {
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

/// A send's answer on its way to the queue.
private struct Answer: Sendable {
    let claim: ClaimedTarget
    let attempt: SendAttempt
    /// When the send started (the latency histogram runs to the recorded result).
    let start: ContinuousClock.Instant
}

/// What one send came to, before the relay decides between final and retry.
enum SendAttempt {
    case sent(status: Int, providerID: String, attempts: Int)
    case rejected(status: Int?, reason: String, retryable: Bool, prune: Bool, attempts: Int, detail: String? = nil)
    /// Final without a provider answer (bad content, no credentials, bad token shape).
    case failed(reason: String, detail: String, prune: Bool = false)
}

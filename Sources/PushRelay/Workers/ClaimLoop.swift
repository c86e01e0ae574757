import Foundation
import PushHTTP

/// Claims targets from the queue ahead of the sends, so the sends in flight stay at
/// `concurrency` while the queue commits: up to `3 × concurrency` claimed ahead or being sent
/// (`2 × concurrency` ahead while every slot sends), asked for once fewer than `concurrency`
/// wait, so a claim arrives before they run out even when it waits behind a commit. Each claim
/// is handed to the worker pool at once.
///
/// Guarantees:
/// - Every target it claims is held (`HeldTargets`) until the recorder has written its answer
///   or `giveBack` returned it to the queue. A target whose answer or return could not be
///   written (the queue failing) is left to its lease, and claimed again (here or on another
///   node) once the lease runs out: sent at least once.
/// - While a target is held, its claim's lease is renewed every third of a lease, so a target
///   that waits longer than a lease (for a low `rate_per_minute`) is not claimed again and sent
///   twice. A held lease runs out only when renewing fails for two thirds of it.
/// - Nothing is claimed once stopping. With nothing ready it asks the queue again at once on
///   `DeliverySignals.newWork` (this node queued a push), else when the next retry is due, at
///   most 250 ms later (another node may queue work too).
final class ClaimLoop: Sendable {
    private let queue: any PushQueue
    private let held: HeldTargets
    private let pool: WorkerPool
    private let signals: DeliverySignals
    private let consumer: String
    private let lease: Duration
    private let log: @Sendable (String) -> Void
    private let calls: PendingCalls
    private let tasks = SanitizerVisibleMutex<(loop: Task<Void, Never>?, renewer: Task<Void, Never>?)>((nil, nil))

    init(queue: any PushQueue, held: HeldTargets, pool: WorkerPool, signals: DeliverySignals, consumer: String,
         leaseSeconds: Int, calls: PendingCalls, log: @escaping @Sendable (String) -> Void) {
        self.queue = queue
        self.calls = calls
        self.held = held
        self.pool = pool
        self.signals = signals
        self.consumer = consumer
        lease = .seconds(leaseSeconds)
        self.log = log
    }

    func start() {
        let loop = Task { await self.run() }
        let renewer = Task { [weak self, lease] in
            let every = max(Duration.milliseconds(500), lease / 3)
            while !Task.isCancelled {
                try? await Task.sleep(for: every)
                guard let self else { return }
                await self.renewLeases()
            }
        }
        tasks.withLock { $0 = (loop, renewer) }
    }

    /// Waits for the loop to end (after `WorkerPool.stop`, with both wake-ups signalled).
    func finish() async {
        await tasks.withLock({ $0.loop })?.value
    }

    /// Stops renewing leases (once every held target is recorded or about to be given back).
    func stopRenewing() {
        tasks.withLock({ $0.renewer })?.cancel()
    }

    /// Gives the targets claimed ahead and never sent back to the queue, ready at once; those it
    /// cannot give back are sent after their lease.
    func giveBack() async {
        let unsent = held.takeUnsent()
        guard !unsent.isEmpty else { return }
        do {
            try await calls.track("give back \(unsent.count) targets") { try await queue.reschedule(unsent.map { TargetRetry($0, attempts: $0.attempts, lastError: nil, notBefore: Date()) }) }
        } catch {
            log("relay: could not give back \(unsent.count) claimed targets: \(error); they are sent after their lease")
        }
    }

    private func run() async {
        while !held.isStopping {
            pool.handOut()
            let room = held.roomToClaim()
            if room <= 0 {
                // Signalled when the claimed targets run low (and by the tick).
                await signals.claimsLow.wait()
                continue
            }
            let claims: [ClaimedTarget]
            // Whole units of the queue's claim (the Redis queue's chunks) when there is room
            // for one: a claim of another size splits a chunk, which costs the queue a write.
            let granularity = queue.claimGranularity
            let limit = room >= granularity ? min(room, 512) / granularity * granularity : min(room, 512)
            do {
                claims = try await calls.track("claim") { try await queue.claim(consumer: consumer, limit: max(1, limit), lease: lease) }
            } catch {
                log("relay: claim failed: \(error); retrying in 1 s")
                await signals.newWork.wait(timeout: .seconds(1))
                continue
            }
            if claims.isEmpty {
                // Nothing ready in the queue: claiming again as each send ends would only ask
                // again; new work pokes, a retry's time comes (`idleWait`).
                await signals.newWork.wait(timeout: await idleWait())
                continue
            }
            held.claimed(claims)
        }
    }

    /// Until the next retry is due, at most 250 ms (another node may queue work too).
    private func idleWait() async -> Duration {
        guard let next = try? await calls.track("next ready date", { try await queue.nextReadyDate() }) else { return .milliseconds(250) }
        let seconds = next.timeIntervalSinceNow
        if seconds <= 0 { return .milliseconds(1) }
        return .milliseconds(min(250, Int(seconds * 1000) + 1))
    }

    /// Extends the leases of every claim this node still holds.
    private func renewLeases() async {
        let receipts = held.heldReceipts
        guard !receipts.isEmpty else { return }
        do {
            try await calls.track("renew \(receipts.count) leases") { try await queue.renew(receipts: receipts, lease: lease) }
        } catch {
            log("relay: could not renew the leases of \(receipts.count) claims: \(error); retrying in a third of a lease")
        }
    }
}

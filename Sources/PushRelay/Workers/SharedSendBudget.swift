import PushHTTP
import PushRedis

/// An app's send budget shared by every node through Redis (`RedisRateBudget`, a Lua token
/// bucket on Redis's clock). A node takes a lease of tokens at once (`lease`: at most 1,024, and
/// at most a tenth of the bucket) and spends them locally, so a send costs a Redis round trip only
/// now and then; tokens taken are spent, so the nodes together never exceed the budget.
///
/// One lease is asked for at a time per node: when the local tokens run out, the first worker
/// asks Redis and every other worker that finds none waits for that answer instead of asking
/// too. (Before, each of the `workers.concurrency` workers that found the tokens spent asked on
/// its own: 64 script calls, and up to 64 leases held by one node, each time the tokens ran out.
/// On a Redis Cluster those calls all land on the master of `{pushlab}`.)
///
/// When Redis cannot be reached the node falls back to its own local budget (sending goes on;
/// the log says so once).
final class SharedSendBudget: SendBudget {
    private let budget: RedisRateBudget
    private let fallback: RateBudget
    private let log: @Sendable (String) -> Void
    /// Tokens asked for per Redis call.
    let lease: Int
    /// The most tokens one lease takes, whatever the bucket's size.
    static let largestLease = 1_024
    /// How a lease request ended, for the workers that waited for it.
    private enum Refill: Sendable {
        case granted
        /// Redis could not be reached: the waiting workers take from the local fallback.
        case unavailable
    }
    private struct State {
        var tokens = 0
        var failing = false
        /// The lease request in flight, if any: workers that find no tokens wait for it.
        var refill: Task<Refill, Never>?
    }
    private let state = SanitizerVisibleMutex(State())

    init(budget: RedisRateBudget, fallback: RateBudget, log: @escaping @Sendable (String) -> Void) {
        self.budget = budget
        self.fallback = fallback
        self.log = log
        lease = max(1, min(Self.largestLease, budget.budget.burst / 10))
    }

    func take() async {
        while true {
            let next = state.withLock { s -> Task<Refill, Never>? in
                if s.tokens > 0 {
                    s.tokens -= 1
                    return nil
                }
                if let refill = s.refill { return refill }
                let refill = Task { await self.refill() }
                s.refill = refill
                return refill
            }
            guard let next else { return }
            if await next.value == .unavailable {
                await fallback.take()
                return
            }
        }
    }

    /// One lease request (the only one in flight on this node). When the bucket granted nothing,
    /// waits here until the shortfall refills (at most 1 s) before it ends, so the waiting
    /// workers ask again then, once, not at once each.
    private func refill() async -> Refill {
        do {
            let grant = try await budget.take(lease)
            if grant.granted == 0 { try? await Task.sleep(for: min(grant.retryAfter, .seconds(1))) }
            // The tokens and the end of this request in one step: a worker that finds no tokens
            // after this starts the next request.
            let recovered = state.withLock { s -> Bool in
                s.tokens += grant.granted
                s.refill = nil
                defer { s.failing = false }
                return s.failing
            }
            if recovered { log("relay: shared budget \(budget.key) reachable again") }
            return .granted
        } catch {
            let first = state.withLock { s -> Bool in
                s.refill = nil
                defer { s.failing = true }
                return !s.failing
            }
            if first { log("relay: shared budget \(budget.key) unavailable (\(error)); using this node's own budget meanwhile") }
            return .unavailable
        }
    }
}

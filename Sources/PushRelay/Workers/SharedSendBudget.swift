import PushHTTP
import PushRedis

/// An app's send budget shared by every node through Redis (`RedisRateBudget`, a Lua token
/// bucket on Redis's clock). A node takes tokens a few at a time (at most 128, and at most
/// a tenth of the bucket) and spends them locally, so a send costs a Redis round trip only
/// now and then; tokens taken are spent, so the nodes together never exceed the budget.
/// When Redis cannot be reached the node falls back to its own local budget (sending goes on;
/// the log says so once).
final class SharedSendBudget: SendBudget {
    private let budget: RedisRateBudget
    private let fallback: RateBudget
    private let log: @Sendable (String) -> Void
    private let batch: Int
    private struct State {
        var tokens = 0
        var failing = false
    }
    private let state = SanitizerVisibleMutex(State())

    init(budget: RedisRateBudget, fallback: RateBudget, log: @escaping @Sendable (String) -> Void) {
        self.budget = budget
        self.fallback = fallback
        self.log = log
        batch = max(1, min(128, budget.budget.burst / 10))
    }

    func take() async {
        while true {
            let had = state.withLock { s -> Bool in
                guard s.tokens > 0 else { return false }
                s.tokens -= 1
                return true
            }
            if had { return }
            do {
                let grant = try await budget.take(batch)
                let recovered = state.withLock { s -> Bool in
                    s.tokens += grant.granted
                    defer { s.failing = false }
                    return s.failing
                }
                if recovered { log("relay: shared budget \(budget.key) reachable again") }
                if grant.granted == 0 { try? await Task.sleep(for: min(grant.retryAfter, .seconds(1))) }
            } catch {
                let first = state.withLock { s -> Bool in
                    defer { s.failing = true }
                    return !s.failing
                }
                if first { log("relay: shared budget \(budget.key) unavailable (\(error)); using this node's own budget meanwhile") }
                await fallback.take()
                return
            }
        }
    }
}

import PushCore
import PushHTTP

/// One app's send budget: `perMinute` sends a minute, at most one second's worth in a burst
/// (FCM's default quota is 600,000 messages a minute per project; docs/specs/fcm.md).
final class RateBudget: SendBudget {
    private let perSecond: Double
    private let burst: Double
    /// Taken on every send: a struct, not a tuple, so the lock needs no type looked up at run time.
    private struct Bucket {
        var tokens: Double
        var last: ContinuousClock.Instant
    }
    private let state: SanitizerVisibleMutex<Bucket>

    init(perMinute: Int) {
        perSecond = Double(perMinute) / 60
        burst = max(1, perSecond)
        state = SanitizerVisibleMutex(Bucket(tokens: burst, last: ContinuousClock.now))
    }

    /// Takes one send from the budget, waiting until there is one.
    func take() async {
        let owed: Double = state.withLock { s in
            let now = ContinuousClock.now
            s.tokens = min(burst, s.tokens + (now - s.last).seconds * perSecond)
            s.last = now
            s.tokens -= 1
            return -s.tokens
        }
        if owed > 0 { try? await Task.sleep(for: .milliseconds(Int(owed / perSecond * 1000) + 1)) }
    }
}

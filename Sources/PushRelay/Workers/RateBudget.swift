import PushHTTP

/// One app's send budget: `perMinute` sends a minute, at most one second's worth in a burst
/// (FCM's default quota is 600,000 messages a minute per project; docs/specs/fcm.md).
final class RateBudget: SendBudget {
    private let perSecond: Double
    private let burst: Double
    private let state: SanitizerVisibleMutex<(tokens: Double, last: ContinuousClock.Instant)>

    init(perMinute: Int) {
        perSecond = Double(perMinute) / 60
        burst = max(1, perSecond)
        state = SanitizerVisibleMutex((burst, ContinuousClock.now))
    }

    /// Takes one send from the budget, waiting until there is one.
    func take() async {
        let wait: Duration = state.withLock { s in
            let now = ContinuousClock.now
            let elapsed = now - s.last
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            s.tokens = min(burst, s.tokens + seconds * perSecond)
            s.last = now
            s.tokens -= 1
            return s.tokens >= 0 ? .zero : .milliseconds(Int((-s.tokens / perSecond) * 1000) + 1)
        }
        if wait > .zero { try? await Task.sleep(for: wait) }
    }
}

import Synchronization

/// Wakes one waiting loop early: `signal()` before `wait` makes the next `wait` return at once.
final class Wakeup: Sendable {
    private struct State {
        var signalled = false
        var waiter: CheckedContinuation<Void, Never>?
        var generation = 0
    }
    private let state = Mutex(State())

    func signal() {
        let waiter: CheckedContinuation<Void, Never>? = state.withLock { s in
            if let w = s.waiter {
                s.waiter = nil
                return w
            }
            s.signalled = true
            return nil
        }
        waiter?.resume()
    }

    /// Returns on `signal()` or after `timeout`, whichever comes first.
    func wait(timeout: Duration) async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let generation: Int? = state.withLock { s in
                if s.signalled {
                    s.signalled = false
                    return nil
                }
                s.generation += 1
                s.waiter = c
                return s.generation
            }
            guard let generation else { return c.resume() }
            Task {
                try? await Task.sleep(for: timeout)
                let waiter: CheckedContinuation<Void, Never>? = self.state.withLock { s in
                    guard s.generation == generation, let w = s.waiter else { return nil }
                    s.waiter = nil
                    return w
                }
                waiter?.resume()
            }
        }
    }
}

/// Where a worker takes one send from an app's budget, waiting until there is one.
protocol SendBudget: Sendable {
    func take() async
}

/// One app's send budget: `perMinute` sends a minute, at most one second's worth in a burst
/// (FCM's default quota is 600,000 messages a minute per project; docs/specs/fcm.md).
final class RateBudget: SendBudget {
    private let perSecond: Double
    private let burst: Double
    private let state: Mutex<(tokens: Double, last: ContinuousClock.Instant)>

    init(perMinute: Int) {
        perSecond = Double(perMinute) / 60
        burst = max(1, perSecond)
        state = Mutex((burst, ContinuousClock.now))
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

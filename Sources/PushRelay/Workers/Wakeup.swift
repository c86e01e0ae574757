import Dispatch
import PushHTTP

/// Wakes one waiting loop early: `signal()` before `wait` makes the next `wait` return at once.
/// One waiter at a time (a second would replace the first, whose continuation would never be
/// resumed: debug builds stop there); `DeliverySignals` documents who waits on each.
final class Wakeup: Sendable {
    private struct State {
        var signalled = false
        var waiter: CheckedContinuation<Void, Never>?
        var generation = 0
    }
    /// Signalled and waited on from different threads: hand-overs ThreadSanitizer can see.
    private let state = SanitizerVisibleMutex(State())

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

    /// Whether a `wait` is waiting now (tests wait for this event instead of sleeping).
    var hasWaiter: Bool { state.withLock { $0.waiter != nil } }

    /// Returns on `signal()`, with no timer: for a loop whose every reason to go on signals it.
    func wait() async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let waits: Bool = state.withLock { s in
                if s.signalled {
                    s.signalled = false
                    return false
                }
                assert(s.waiter == nil, "a second waiter on one Wakeup: the first would never be resumed")
                s.generation += 1
                s.waiter = c
                return true
            }
            if !waits { c.resume() }
        }
    }

    /// Returns on `signal()` or after `timeout`, whichever comes first. The timeout is a
    /// Dispatch timer, not a sleeping task: a wait costs no task and wakes no thread until
    /// the timer fires.
    func wait(timeout: Duration) async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let generation: Int? = state.withLock { s in
                if s.signalled {
                    s.signalled = false
                    return nil
                }
                assert(s.waiter == nil, "a second waiter on one Wakeup: the first would never be resumed")
                s.generation += 1
                s.waiter = c
                return s.generation
            }
            guard let generation else { return c.resume() }
            let (seconds, attoseconds) = timeout.components
            let nanoseconds = max(0, min(seconds, 86_400)) * 1_000_000_000 + max(0, attoseconds / 1_000_000_000)
            DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(nanoseconds))) {
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

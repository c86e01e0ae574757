import Foundation

/// The extension's sense of time: budgets, expiry and kill instants are measured on it, so the
/// simulator can run thousands of NSE runs with time compressed (docs/specs/device-side.md §2: a 30 s budget
/// becomes 30 ms at scale 1000). Network deadlines are converted back to real time.
public protocol NSEClock: Sendable {
    /// Emulated time elapsed since the clock started.
    func now() -> Duration
    /// Suspends until the emulated instant `deadline`; throws `CancellationError` when cancelled.
    func sleep(until deadline: Duration) async throws
    /// How long an emulated duration lasts in real time (for transport timeouts).
    func realDuration(_ emulated: Duration) -> Duration
    /// A task that uses the clock starts / ends (see `EventClock`; other clocks ignore it).
    func join()
    func leave()
}

extension Duration {
    /// Whole milliseconds, for timelines and reports.
    public var milliseconds: Int64 {
        let (s, atto) = components
        return s * 1000 + atto / 1_000_000_000_000_000
    }
}

extension NSEClock {
    /// A task that does the run's work or waits on its timers starts (`join`) and ends
    /// (`leave`); only `EventClock` counts them.
    public func join() {}
    public func leave() {}
}

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
}

/// Real time multiplied by `scale` (1 = real time; 1000 = a 30 s budget lasts 30 ms).
public struct ScaledClock: NSEClock {
    public let scale: Double
    private let origin: ContinuousClock.Instant

    public init(scale: Double = 1) {
        precondition(scale > 0, "time scale must be positive")
        self.scale = scale
        origin = ContinuousClock.now
    }

    public func now() -> Duration { (ContinuousClock.now - origin) * scale }

    public func sleep(until deadline: Duration) async throws {
        let remaining = deadline - now()
        guard remaining > .zero else { return }
        try await Task.sleep(for: realDuration(remaining))
    }

    public func realDuration(_ emulated: Duration) -> Duration { emulated / scale }
}

extension Duration {
    /// Whole milliseconds, for timelines and reports.
    public var milliseconds: Int64 {
        let (s, atto) = components
        return s * 1000 + atto / 1_000_000_000_000_000
    }
}

import Foundation

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

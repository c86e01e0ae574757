import Foundation

/// Where "now" comes from. Production code takes a `TimeSource`, so tests and the simulator
/// can drive time (token refresh windows, budgets, recovery timestamps).
public protocol TimeSource: Sendable {
    var now: Date { get }
}

/// The real wall clock.
public struct SystemTimeSource: TimeSource {
    public init() {}
    public var now: Date { Date() }
}

/// A clock that moves only when told to. Thread-safe.
public final class ManualTimeSource: TimeSource, @unchecked Sendable {
    // Protected by `lock`.
    private var current: Date
    private let lock = NSLock()

    public init(_ start: Date = Date(timeIntervalSince1970: 1_767_225_600)) { current = start }  // 2026-01-01T00:00:00Z

    public var now: Date { lock.withLock { current } }

    public func advance(by seconds: TimeInterval) { lock.withLock { current += seconds } }
    public func set(_ date: Date) { lock.withLock { current = date } }
}

import Foundation
import Synchronization

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
public final class ManualTimeSource: TimeSource, Sendable {
    private let current: Mutex<Date>

    public init(_ start: Date = Date(timeIntervalSince1970: 1_767_225_600)) { current = Mutex(start) }  // 2026-01-01T00:00:00Z

    public var now: Date { current.withLock { $0 } }

    public func advance(by seconds: TimeInterval) { current.withLock { $0 += seconds } }
    public func set(_ date: Date) { current.withLock { $0 = date } }
}

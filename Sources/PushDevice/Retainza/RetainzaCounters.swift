import Foundation

/// What the SDK did since it started — the simulation and `pushlab retainza` read these.
public struct RetainzaCounters: Sendable, Equatable, Codable {
    public var delivered = 0
    /// Calls that entered the offline queue (first failure, or behind waiting calls).
    public var queued = 0
    /// Queued calls that reached the API later, with their call-time timestamp.
    public var deliveredLate = 0
    public var droppedByCap = 0
    public var rejected4xx = 0
    public var droppedNoConsent = 0
    public var droppedOptedOut = 0
    /// Queued calls cleared by `optOut()` or `reset()`.
    public var clearedFromQueue = 0
    /// Never-queued calls (registration, acks) that failed.
    public var lostNeverQueued = 0
    public var acksDelivered = 0
    public var opensDelivered = 0
    public init() {}
}

/// One line of the SDK's log (warnings reach the app's `logger` even with `debug` off).
public struct RetainzaLogLine: Sendable, Equatable, Codable {
    public enum Level: String, Sendable, Codable { case debug, warn, error }
    public var at: Date
    public var level: Level
    public var message: String
}

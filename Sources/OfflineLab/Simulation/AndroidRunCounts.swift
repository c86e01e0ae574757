import Foundation
import PushDevice
import PushMetrics

/// The platform a run emulated.
public enum SimulatedPlatform: String, Sendable, Codable, CaseIterable {
    case ios
    case android
}

/// What the virtual Android phones did in one run (counted from their reports).
public struct AndroidRunCounts: Sendable, Codable, Equatable {
    /// The SDK stored and scheduled a delivered metric.
    public var tracked = 0
    /// The process died while the metric was on its way.
    public var killed = 0
    /// WorkManager ran the job again after a failure or a death, and it sent the metric again.
    public var retried = 0
    /// The foreground hand-off claimed the entry and published it on the analytics pipeline.
    public var handedOff = 0
    /// Still on the phone at the horizon (pending store, enqueued job, app queue).
    public var pendingAtEnd = 0
}

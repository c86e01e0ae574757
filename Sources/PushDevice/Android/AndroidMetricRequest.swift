import Foundation
import PushCore
import PushHTTP

/// One metric request the virtual phone made (or tried to make).
public struct AndroidMetricRequest: Sendable, Codable, Equatable {
    public enum Channel: String, Sendable, Codable {
        /// The WorkManager job (`PushDeliveryMetricsWorker`): `POST /v1/track`.
        case workManager = "workmanager"
        /// The direct-HTTP fallback when WorkManager is unavailable: `POST /v1/track`.
        case direct
        /// The analytics pipeline after the foreground hand-off: `POST /v1/b`.
        case pipeline
    }
    public var atMs: Int64
    public var channel: Channel
    public var url: String
    /// True when the request reached the server (it was sent for real).
    public var reachedServer: Bool
    public var status: Int?
    public var error: String?
}

/// Where the delivered metric ended up.
public enum AndroidMetricFate: String, Sendable, Codable {
    /// Reached the server exactly once.
    case sentOnce = "sent-once"
    /// Reached the server more than once (the collector counts the repeats as duplicates).
    case sentMoreThanOnce = "sent-more-than-once"
    /// Still on the phone: in the pending store or the app's event queue, waiting for a launch.
    case pending
    /// Gone from the phone without reaching the server.
    case lost
    /// `autoTrackPushEvents` off or the duplicate guard dropped it: nothing to send.
    case notTracked = "not-tracked"
}

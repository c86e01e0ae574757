import Foundation
import PushCore
import PushDevice

/// The Android phone's side of the experiment (docs/recovery.md "Android").
public struct AndroidSimulationSettings: Sendable, Codable, Equatable {
    /// Probability that a push (neither killed nor with a failing metric) arrives while the phone
    /// dozes: high-priority messages still arrive, but the app has no network and no jobs run.
    public var dozeRate = 0.0
    /// How long that Doze window lasts from the push's arrival (emulated ms).
    public var dozeMs: Int64 = 2 * 3_600_000
    /// With `launches` ≥ 1, the user brings the app to the foreground this long after each push
    /// (emulated ms): the SDK hands what is still pending to its analytics pipeline.
    public var launchAfterMs: Int64 = 3_600_000
    /// Nothing is emulated past this instant after a push: a metric still pending then (the app
    /// not opened for that long) counts as lost.
    public var horizonMs: Int64 = 86_400_000
    /// Emulated time between two pushes on one phone during an offline span: the network comes
    /// back this long after the span's last push on that phone.
    public var offlinePushSpacingMs: Int64 = 60_000

    public init() {}
}

import Foundation
import PushCore
import PushDevice

/// What the seed decided for one push.
struct PushFate: Sendable, Equatable {
    var killed: KillStage?
    var metricFails: Bool
    var imageLatency: Duration
    /// Android: the phone dozes when the push arrives.
    var dozes = false
    /// The phone has no network when the push arrives (`--offline`).
    var offline = false

    /// The fault a push met, for the per-fault table.
    var fault: SimulatedFault {
        switch killed {
        case .beforeSend?: return .killedBeforeSend
        case .inFlight?, .mixed?: return .killedInFlight
        case nil: return offline ? .offline : metricFails ? .metricFailed : dozes ? .doze : .none
        }
    }
}

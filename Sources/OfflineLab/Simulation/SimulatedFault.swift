import Foundation
import PushCore
import PushDevice

/// The faults the per-fault table tells apart, in its order.
public enum SimulatedFault: String, Sendable, Codable, CaseIterable {
    case killedBeforeSend = "killed before send"
    case killedInFlight = "killed in flight"
    case metricFailed = "metric request failed"
    case doze = "Doze"
    case offline = "offline span"
    case none = "no fault"
}

import Foundation
import PushDevice
import PushMetrics

/// One row of the per-fault table.
public struct FaultOutcome: Sendable, Codable, Equatable {
    public var fault: SimulatedFault
    public var pushes = 0
    public var lost = 0
    public var recovered = 0
    public var duplicates = 0
}

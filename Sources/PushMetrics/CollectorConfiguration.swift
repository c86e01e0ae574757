import Foundation
import PushCore

public struct CollectorConfiguration: Sendable {
    public var credentials: CollectorCredentials
    public var faultPlan: FaultPlan
    public var acknowledgement: CollectorAcknowledgement
    /// Records the writer lets wait (up to a few milliseconds) to commit them in one
    /// transaction; at this many it commits at once. 1 commits each request inside its handler,
    /// on the handler's thread, with no timer left behind (the fuzz targets, Fuzz/README.md).
    public var maxPendingWrites = 512

    public init(credentials: CollectorCredentials = CollectorCredentials(), faultPlan: FaultPlan = .none,
                acknowledgement: CollectorAcknowledgement = .committed) {
        self.credentials = credentials
        self.faultPlan = faultPlan
        self.acknowledgement = acknowledgement
    }
}

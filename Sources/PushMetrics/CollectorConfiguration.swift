import Foundation
import Synchronization
import PushCore
import PushHTTP

public struct CollectorConfiguration: Sendable {
    public var credentials: CollectorCredentials
    public var faultPlan: FaultPlan
    public var acknowledgement: CollectorAcknowledgement

    public init(credentials: CollectorCredentials = CollectorCredentials(), faultPlan: FaultPlan = .none,
                acknowledgement: CollectorAcknowledgement = .committed) {
        self.credentials = credentials
        self.faultPlan = faultPlan
        self.acknowledgement = acknowledgement
    }
}

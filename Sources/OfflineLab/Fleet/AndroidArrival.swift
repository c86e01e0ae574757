import Foundation
import PushCore
import PushDevice
import PushGateway

/// What happened on a virtual Android phone to one FCM message the gateway accepted.
public struct AndroidFleetDelivery: Sendable {
    public var push: AcceptedPush
    public var deviceName: String
    public var report: AndroidReceiveReport
}

/// How a message reaches the phone: the app's state and what happens after it arrives.
public struct AndroidArrival: Sendable {
    public var state: AndroidAppState
    public var conditions: AndroidConditions
    /// The phone has no network when the message arrives (an offline span): the SDK stores the
    /// metric's entry, and the metric's timeline runs when the span ends on this phone — before
    /// its next message that is not offline, or after its last — with the network back this
    /// long (ms) after each later message of the span. Only on phones given an order.
    public var offlineSpacingMs: Int64?
    public init(state: AndroidAppState = .background, conditions: AndroidConditions = AndroidConditions(), offlineSpacingMs: Int64? = nil) {
        self.state = state
        self.conditions = conditions
        self.offlineSpacingMs = offlineSpacingMs
    }
}

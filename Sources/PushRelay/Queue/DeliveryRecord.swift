/// A final result in an app's delivery log.
public struct DeliveryRecord: Sendable, Hashable {
    public var pushID: PushID
    public var index: Int
    public var target: PushTarget
    public var outcome: TargetOutcome
    public init(pushID: PushID, index: Int, target: PushTarget, outcome: TargetOutcome) {
        self.pushID = pushID
        self.index = index
        self.target = target
        self.outcome = outcome
    }
}

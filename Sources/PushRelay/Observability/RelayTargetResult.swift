/// One target's final result: sent, or failed for good (retries ran out or the answer was final).
public struct RelayTargetResult: Sendable {
    public var pushID: PushID
    public var app: String
    /// The target's position in its push (0-based).
    public var index: Int
    public var target: PushTarget
    public var outcome: TargetOutcome
    /// What was sent; nil when the queued content could not be read.
    public var content: RelayPushContent?
}

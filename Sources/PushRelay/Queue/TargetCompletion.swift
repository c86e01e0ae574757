public struct TargetCompletion: Sendable {
    public var claim: ClaimedTarget
    public var outcome: TargetOutcome
    public init(_ claim: ClaimedTarget, _ outcome: TargetOutcome) {
        self.claim = claim
        self.outcome = outcome
    }
}

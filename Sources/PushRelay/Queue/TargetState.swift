/// One target of a push as `status(of:)` reports it.
public struct TargetState: Sendable, Hashable {
    public enum Phase: String, Sendable, Hashable, Codable {
        case waiting, claimed, sent, failed
    }
    public var index: Int
    public var target: PushTarget
    public var phase: Phase
    public var attempts: Int
    /// The last retryable error while waiting for another attempt.
    public var lastError: String?
    public var outcome: TargetOutcome?

    public init(index: Int, target: PushTarget, phase: Phase, attempts: Int, lastError: String?, outcome: TargetOutcome?) {
        self.index = index
        self.target = target
        self.phase = phase
        self.attempts = attempts
        self.lastError = lastError
        self.outcome = outcome
    }
}

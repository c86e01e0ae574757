import Foundation

/// Watches the relay's pushes: each one as it is durably queued, and each target as it gets its
/// final result (`pushlab relay --console` feeds the console's push log from it). Called on the
/// relay's request and worker tasks, so it must return quickly.
public protocol RelayObserver: Sendable {
    func accepted(_ push: RelayAcceptedPush)
    func finished(_ result: RelayTargetResult)
}

/// A push the relay answered `202` for.
public struct RelayAcceptedPush: Sendable {
    public var pushID: PushID
    public var app: String
    public var targets: [PushTarget]
    public var content: RelayPushContent
    public var acceptedAt: Date
}

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

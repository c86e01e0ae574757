/// One chunk of work as a node holds it: the stream entry and how often it was delivered.
public struct RedisWorkItem: Sendable, Hashable {
    public var entry: RedisStreamEntry
    /// 1 on the first delivery; more after a take-over.
    public var deliveries: Int
}

/// What `claimTarget` found for one (push, target).
public enum RedisTargetClaim: Sendable, Hashable {
    /// This node holds the target now: send it.
    case claimed
    /// A final answer was recorded already (by any node): do not send it again.
    case alreadyDone
    /// Another node holds a live claim on it.
    case heldBy(String)
}

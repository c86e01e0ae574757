/// One pending entry (`XPENDING … - + COUNT`): who holds it, for how long, how often delivered.
public struct RedisPendingEntry: Sendable, Hashable {
    public var id: String
    public var consumer: String
    public var idle: Duration
    public var deliveries: Int
}

/// `XPENDING key group`: the group's pending total and count per consumer.
public struct RedisPendingSummary: Sendable, Hashable {
    public var count: Int
    public var smallestID: String?
    public var largestID: String?
    public var perConsumer: [String: Int]
}

/// How a `RedisWorkStream` names its keys and when it takes work over.
public struct RedisWorkStreamConfiguration: Sendable, Hashable {
    /// The work stream, its consumer group and the dead-letter stream.
    public var stream: String
    public var group: String
    public var deadLetterStream: String
    /// An entry pending this long without an acknowledgement is taken over (its node died or
    /// stalled). Longer than the longest send, retries included.
    public var claimDeadline: Duration
    /// Past this many deliveries an entry goes to the dead-letter stream instead.
    public var maxDeliveries: Int
    /// How long `next` waits for new work when there is none.
    public var readBlock: Duration
    /// Prefix of the per-(push, target) claim and done markers.
    public var markerPrefix: String
    /// How long a done marker outlives its target (so a late taken-over entry still finds it).
    public var doneMarkerLifetime: Duration

    public init(prefix: String = "pushlab", claimDeadline: Duration = .seconds(30), maxDeliveries: Int = 5,
                readBlock: Duration = .seconds(1), doneMarkerLifetime: Duration = .seconds(7 * 24 * 3600)) {
        stream = "\(prefix):work"
        group = "\(prefix):relay"
        deadLetterStream = "\(prefix):dead"
        markerPrefix = "\(prefix):target"
        self.claimDeadline = claimDeadline
        self.maxDeliveries = maxDeliveries
        self.readBlock = readBlock
        self.doneMarkerLifetime = doneMarkerLifetime
    }
}

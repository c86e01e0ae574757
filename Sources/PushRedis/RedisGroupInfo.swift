/// One line of `XINFO GROUPS`: the group's consumers, pending entries and lag (entries not yet
/// delivered to the group; nil when Redis cannot tell, e.g. after deletions).
public struct RedisGroupInfo: Sendable, Hashable {
    public var name: String
    public var consumers: Int
    public var pending: Int
    public var lastDeliveredID: String
    public var lag: Int?
}

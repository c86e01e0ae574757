/// One stream entry: its id (`1700000000000-0`) and its field/value pairs in order.
public struct RedisStreamEntry: Sendable, Hashable {
    public var id: String
    public var fields: [(String, String)]

    public init(id: String, fields: [(String, String)]) {
        self.id = id
        self.fields = fields
    }

    /// The first value of `field`.
    public subscript(field: String) -> String? { fields.first { $0.0 == field }?.1 }

    public static func == (a: RedisStreamEntry, b: RedisStreamEntry) -> Bool {
        a.id == b.id && a.fields.elementsEqual(b.fields) { $0 == $1 }
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(id)
        for (field, value) in fields { hasher.combine(field); hasher.combine(value) }
    }

    /// `[id, [field, value, …]]`; a pending entry deleted from the stream has nil fields.
    public init?(reply: RedisReply) {
        guard let parts = reply.array, parts.count == 2, let id = parts[0].string else { return nil }
        self.id = id
        var fields: [(String, String)] = []
        if let flat = parts[1].array {
            var index = 0
            while index + 1 < flat.count {
                fields.append((flat[index].string ?? "", flat[index + 1].string ?? ""))
                index += 2
            }
        }
        self.fields = fields
    }
}

/// What `XAUTOCLAIM` took over: the entries (now owned by the caller, delivery count raised),
/// the ids that were pending but no longer exist in the stream (removed from the PEL by Redis),
/// and where the next scan starts (`0-0` once the whole PEL was scanned).
public struct RedisAutoClaim: Sendable, Hashable {
    public var nextStart: String
    public var entries: [RedisStreamEntry]
    public var deletedIDs: [String]
}

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

/// One line of `XINFO GROUPS`: the group's consumers, pending entries and lag (entries not yet
/// delivered to the group; nil when Redis cannot tell, e.g. after deletions).
public struct RedisGroupInfo: Sendable, Hashable {
    public var name: String
    public var consumers: Int
    public var pending: Int
    public var lastDeliveredID: String
    public var lag: Int?
}

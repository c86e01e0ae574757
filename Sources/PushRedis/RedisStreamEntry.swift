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

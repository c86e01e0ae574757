import Foundation

/// One object member, with where it was written (byte offsets into the source; nil when the
/// value was built in code).
public struct JSONMember: Sendable, Hashable {
    public var key: String
    public var value: JSONValue
    public var keyOffset: Int?
    public var valueOffset: Int?

    public init(key: String, value: JSONValue, keyOffset: Int? = nil, valueOffset: Int? = nil) {
        self.key = key
        self.value = value
        self.keyOffset = keyOffset
        self.valueOffset = valueOffset
    }

    /// Equality is about content, not where it was written.
    public static func == (a: JSONMember, b: JSONMember) -> Bool { a.key == b.key && a.value == b.value }
    public func hash(into hasher: inout Hasher) {
        hasher.combine(key)
        hasher.combine(value)
    }
}

/// An object's members in source order, duplicates included.
public struct JSONObject: Sendable, Hashable, Sequence {
    public var members: [JSONMember]

    public init(_ members: [JSONMember] = []) { self.members = members }
    public init(_ pairs: KeyValuePairs<String, JSONValue>) {
        members = pairs.map { JSONMember(key: $0.key, value: $0.value) }
    }

    public var count: Int { members.count }
    public var isEmpty: Bool { members.isEmpty }
    public var keys: [String] { members.map(\.key) }
    public func makeIterator() -> IndexingIterator<[JSONMember]> { members.makeIterator() }

    /// The last member named `key` (duplicates: last wins) or nil.
    public subscript(key: String) -> JSONValue? {
        get { member(key)?.value }
        set {
            if let newValue {
                if let i = members.lastIndex(where: { $0.key == key }) {
                    members[i].value = newValue
                } else {
                    members.append(JSONMember(key: key, value: newValue))
                }
            } else {
                members.removeAll { $0.key == key }
            }
        }
    }

    public func member(_ key: String) -> JSONMember? {
        members.last(where: { $0.key == key })
    }

    /// True when some key is written more than once. Payload objects are small, so pairwise
    /// comparison beats hashing every key (this runs for every object on the gateway's path).
    public var hasDuplicateKeys: Bool {
        let n = members.count
        guard n > 1 else { return false }
        if n > 32 { return Set(members.map(\.key)).count != n }
        for i in 1..<n {
            let k = members[i].key
            for j in 0..<i where members[j].key == k { return true }
        }
        return false
    }

    /// Keys written more than once, each with the members that carry it, in source order.
    public var duplicateKeys: [(key: String, members: [JSONMember])] {
        guard hasDuplicateKeys else { return [] }
        var groups: [String: [JSONMember]] = [:]
        var order: [String] = []
        for m in members {
            if groups[m.key] == nil { order.append(m.key) }
            groups[m.key, default: []].append(m)
        }
        return order.compactMap { k in groups[k]!.count > 1 ? (k, groups[k]!) : nil }
    }
}

import Foundation

/// A JSON value that keeps what a push payload's author wrote: key order, duplicate keys,
/// the literal text of numbers, and booleans distinct from numbers. `"mutable-content": true`
/// and `1.0` are therefore visible to the validator instead of being folded into `1`.
/// Not `indirect`: arrays and objects already live in their own storage, and boxing every
/// scalar cost one allocation per value on the gateway's hot path.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case number(JSONNumber)
    case string(String)
    case array(JSONArray)
    case object(JSONObject)

    /// The JSON type name used in findings: `string`, `number`, `boolean`, `null`, `array`, `object`.
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .number: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }

    /// The value's type, with an integer/non-integer split for numbers, for messages like
    /// "expected an integer, found the boolean true".
    public var describedForMessage: String {
        switch self {
        case .null: "null"
        case .bool(let b): "the boolean \(b)"
        case .number(let n): "the number \(n.text)"
        case .string(let s): s.count > 40 ? "a string" : "the string \"\(s)\""
        case .array: "an array"
        case .object: "an object"
        }
    }

    public var stringValue: String? { if case .string(let s) = self { s } else { nil } }
    public var numberValue: JSONNumber? { if case .number(let n) = self { n } else { nil } }
    public var boolValue: Bool? { if case .bool(let b) = self { b } else { nil } }
    public var objectValue: JSONObject? { if case .object(let o) = self { o } else { nil } }
    public var arrayValue: JSONArray? { if case .array(let a) = self { a } else { nil } }
    public var isNull: Bool { if case .null = self { true } else { false } }

    /// Member lookup on an object (the last of duplicate keys wins, as in most decoders); nil
    /// for non-objects and absent keys.
    public subscript(key: String) -> JSONValue? {
        objectValue?[key]
    }

    /// The value at `pointer` (RFC 6901), or nil when a step does not exist.
    public func value(at pointer: JSONPointer) -> JSONValue? {
        var current = self
        for token in pointer.tokens {
            switch current {
            case .object(let o):
                guard let next = o[token] else { return nil }
                current = next
            case .array(let a):
                guard let i = JSONPointer.arrayIndex(token), i < a.count else { return nil }
                current = a[i]
            default:
                return nil
            }
        }
        return current
    }
}

/// A number exactly as written. Its value is derived on demand; the text is what is sent.
public struct JSONNumber: Sendable, Hashable, CustomStringConvertible {
    /// The literal, e.g. `1`, `1.0`, `-0`, `1e3`, `123456789012345678901234567890`.
    public let text: String

    /// `text` must be a valid JSON number literal (the parser and `init(_: Int)` guarantee it).
    public init(literal text: String) { self.text = text }
    public init(_ value: Int) { self.text = String(value) }
    /// A finite double rendered in its shortest round-tripping form.
    public init(_ value: Double) {
        if value == value.rounded(), abs(value) < 1e15 { self.text = String(Int(value)) } else { self.text = "\(value)" }
    }

    /// True when the literal has no fraction and no exponent (`1`, not `1.0` or `1e0`).
    public var isIntegerLiteral: Bool { !text.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }) }
    /// The value as an Int when the literal is an integer that fits; nil otherwise.
    public var intValue: Int? { isIntegerLiteral ? Int(text) : nil }
    /// The value as a Double (may be ±infinity for huge literals).
    public var doubleValue: Double { Double(text) ?? .nan }
    /// True when the value is mathematically an integer, whatever the literal (`1.0`, `1e0`).
    public var hasIntegralValue: Bool {
        if isIntegerLiteral { return true }
        let d = doubleValue
        return d.isFinite && d == d.rounded()
    }
    public var description: String { text }
}

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

/// An array's elements, with the byte offset of each (empty when built in code).
public struct JSONArray: Sendable, Hashable, RandomAccessCollection {
    public var elements: [JSONValue]
    public var offsets: [Int]

    public init(_ elements: [JSONValue] = [], offsets: [Int] = []) {
        self.elements = elements
        self.offsets = offsets
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { elements.count }
    public subscript(i: Int) -> JSONValue { elements[i] }
    public func offset(of index: Int) -> Int? { index < offsets.count ? offsets[index] : nil }

    public static func == (a: JSONArray, b: JSONArray) -> Bool { a.elements == b.elements }
    public func hash(into hasher: inout Hasher) { hasher.combine(elements) }
}

// Literals, so tests and the builder can write payloads as Swift code with their key order.
extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral, ExpressibleByFloatLiteral {
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .number(JSONNumber(value)) }
    public init(floatLiteral value: Double) { self = .number(JSONNumber(value)) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(JSONArray(elements)) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(JSONObject(elements.map { JSONMember(key: $0.0, value: $0.1) }))
    }
    public init(nilLiteral: ()) { self = .null }
}

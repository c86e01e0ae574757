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
    public var typeName: String { kind.typeName }

    public var kind: JSONValueKind {
        switch self {
        case .null: .null
        case .bool: .bool
        case .number: .number
        case .string: .string
        case .array: .array
        case .object: .object
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

/// The six kinds of JSON value.
public enum JSONValueKind: UInt8, Sendable {
    case null, bool, number, string, array, object

    /// The name used in findings: `string`, `number`, `boolean`, `null`, `array`, `object`.
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

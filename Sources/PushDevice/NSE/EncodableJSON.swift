import Foundation
import PushCore

/// Encodes a PushCore `JSONValue` (numbers as written when they fit a Double or Int).
public struct EncodableJSON: Sendable, Codable, Equatable {
    public var value: JSONValue
    public init(_ value: JSONValue) { self.value = value }

    public func encode(to encoder: Encoder) throws {
        switch value {
        case .null:
            var c = encoder.singleValueContainer(); try c.encodeNil()
        case .bool(let b):
            var c = encoder.singleValueContainer(); try c.encode(b)
        case .string(let s):
            var c = encoder.singleValueContainer(); try c.encode(s)
        case .number(let n):
            var c = encoder.singleValueContainer()
            if let i = n.intValue { try c.encode(i) } else { try c.encode(n.doubleValue) }
        case .array(let a):
            var c = encoder.unkeyedContainer()
            for element in a.elements { try c.encode(EncodableJSON(element)) }
        case .object(let o):
            var c = encoder.container(keyedBy: Key.self)
            for member in o.members { try c.encode(EncodableJSON(member.value), forKey: Key(member.key)) }
        }
    }

    public init(from decoder: Decoder) throws {
        if let c = try? decoder.container(keyedBy: Key.self) {
            value = .object(JSONObject(try c.allKeys.map { JSONMember(key: $0.stringValue, value: try c.decode(EncodableJSON.self, forKey: $0).value) }))
        } else if var c = try? decoder.unkeyedContainer() {
            var items: [JSONValue] = []
            while !c.isAtEnd { items.append(try c.decode(EncodableJSON.self).value) }
            value = .array(JSONArray(items))
        } else {
            let c = try decoder.singleValueContainer()
            if c.decodeNil() { value = .null }
            else if let b = try? c.decode(Bool.self) { value = .bool(b) }
            else if let i = try? c.decode(Int.self) { value = .number(JSONNumber(i)) }
            else if let d = try? c.decode(Double.self) { value = .number(JSONNumber(d)) }
            else { value = .string(try c.decode(String.self)) }
        }
    }

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ s: String) { stringValue = s }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}

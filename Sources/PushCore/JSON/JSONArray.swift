import Foundation

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

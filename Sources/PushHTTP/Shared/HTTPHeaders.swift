import Foundation

/// One header field. Order and repetition are kept: the APNs emulator must see duplicates.
public struct HTTPHeader: Sendable, Hashable {
    public var name: String
    public var value: String
    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
    /// True when this field is called `name`, compared as field names are (ASCII, any case).
    public func hasName(_ name: String) -> Bool { HTTPHeaders.namesMatch(self.name, name) }
}

/// An ordered list of header fields with case-insensitive lookup.
public struct HTTPHeaders: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral {
    public private(set) var fields: [HTTPHeader]

    public init(_ fields: [HTTPHeader] = []) { self.fields = fields }
    public init(dictionaryLiteral elements: (String, String)...) {
        fields = elements.map { HTTPHeader($0.0, $0.1) }
    }

    public func makeIterator() -> IndexingIterator<[HTTPHeader]> { fields.makeIterator() }
    public var count: Int { fields.count }

    /// The first value for `name` (case-insensitive), or nil.
    public subscript(name: String) -> String? {
        fields.first { HTTPHeaders.namesMatch($0.name, name) }?.value
    }
    /// Every value for `name`, in order.
    public func values(for name: String) -> [String] {
        fields.filter { HTTPHeaders.namesMatch($0.name, name) }.map(\.value)
    }
    public mutating func add(_ name: String, _ value: String) { fields.append(HTTPHeader(name, value)) }
    /// Replaces every field named `name` with one field.
    public mutating func set(_ name: String, _ value: String) {
        remove(name)
        add(name, value)
    }
    public mutating func remove(_ name: String) {
        fields.removeAll { HTTPHeaders.namesMatch($0.name, name) }
    }

    /// Field names are ASCII tokens (RFC 9110 §5.1), so an ASCII case fold is exact — and far
    /// cheaper than Foundation's locale-aware comparison on the server's hot path.
    static func namesMatch(_ a: String, _ b: String) -> Bool {
        // Most comparisons are between names of different lengths (the HTTP/2 session asks
        // every field of every request whether it is `host`): the counts settle them without
        // the copies below, each a retain and a release of a name's storage.
        guard a.utf8.count == b.utf8.count else { return false }
        var a = a, b = b
        return a.withUTF8 { x in
            b.withUTF8 { y in
                guard x.count == y.count else { return false }
                for index in 0..<x.count where x[index] != y[index] {
                    let l = x[index] | 0x20, r = y[index] | 0x20
                    guard l == r, l >= UInt8(ascii: "a"), l <= UInt8(ascii: "z") else { return false }
                }
                return true
            }
        }
    }
}

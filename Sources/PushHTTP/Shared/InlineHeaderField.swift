/// A response header field whose value (at most `capacity` bytes) is held inline, not in a
/// string: an answer that carries a new value every time (an id) makes, keeps and writes it
/// without a heap allocation, where an `HTTPHeader` value longer than 15 bytes is a heap string.
/// The server writes these fields after `ServerResponse.headers`, exactly as if they were there.
public struct InlineHeaderField: Sendable, Equatable {
    /// The name as sent (lowercase for HTTP/2, RFC 9113 §8.2.1); short names are inline strings.
    public let name: String
    private var storage: (UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0)
    private let count: UInt8

    /// Longest value held.
    public static let capacity = 40

    /// A field named `name` with `value`'s bytes; nil when the value is longer than `capacity`.
    public init?(_ name: String, bytes value: UnsafeBufferPointer<UInt8>) {
        guard value.count <= Self.capacity else { return nil }
        self.name = name
        count = UInt8(value.count)
        if let base = value.baseAddress {
            withUnsafeMutableBytes(of: &storage) { $0.baseAddress!.copyMemory(from: base, byteCount: value.count) }
        }
    }

    /// The value's bytes, for the time of `body`.
    public func withValue<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try withUnsafeBytes(of: storage) { raw in
            try body(UnsafeBufferPointer(start: raw.baseAddress!.assumingMemoryBound(to: UInt8.self), count: Int(count)))
        }
    }

    /// The value as a string (made here, for readers that need one).
    public var value: String { withValue { String(decoding: $0, as: UTF8.self) } }

    /// The field as an `HTTPHeader`.
    public var header: HTTPHeader { HTTPHeader(name, value) }

    public static func == (a: Self, b: Self) -> Bool {
        a.name == b.name && a.withValue { x in b.withValue { y in x.elementsEqual(y) } }
    }
}

/// The inline fields of one response: at most two, held in place (no array to allocate).
public struct InlineHeaderFields: Sendable, Equatable, Sequence {
    private var first: InlineHeaderField?
    private var second: InlineHeaderField?

    public init() {}

    /// One field, or two (no variadic list: that would be an array per response).
    public init(_ first: InlineHeaderField, _ second: InlineHeaderField? = nil) {
        self.first = first
        self.second = second
    }

    public var count: Int { (first == nil ? 0 : 1) + (second == nil ? 0 : 1) }
    public var isEmpty: Bool { first == nil }

    /// Adds `field`; false (and nothing added) when two are held already.
    @discardableResult
    public mutating func append(_ field: InlineHeaderField) -> Bool {
        if first == nil { first = field; return true }
        if second == nil { second = field; return true }
        return false
    }

    /// The first value for `name` (ASCII case-insensitive), or nil.
    public subscript(name: String) -> String? {
        first { HTTPHeaders.namesMatch($0.name, name) }?.value
    }

    public func makeIterator() -> Iterator { Iterator(fields: self) }

    public struct Iterator: IteratorProtocol {
        fileprivate let fields: InlineHeaderFields
        fileprivate var index = 0
        public mutating func next() -> InlineHeaderField? {
            defer { index += 1 }
            switch index {
            case 0: return fields.first
            case 1: return fields.second
            default: return nil
            }
        }
    }
}

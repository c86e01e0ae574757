/// A response header field held inline, name (at most `nameCapacity` bytes) and value (at most
/// `capacity` bytes) alike: an answer that carries a new value every time (an id) makes, keeps
/// and writes it without a heap allocation, where an `HTTPHeader` value longer than 15 bytes is
/// a heap string. A plain value (no references), so copying one is copying its bytes. The
/// server writes these fields after `ServerResponse.headers`, exactly as if they were there.
public struct InlineHeaderField: Sendable, Equatable {
    @usableFromInline var nameStorage: (UInt64, UInt64, UInt64) = (0, 0, 0)
    @usableFromInline var valueStorage: (UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0)
    @usableFromInline var nameCount: UInt8 = 0
    @usableFromInline var valueCount: UInt8 = 0

    /// Longest value held.
    public static let capacity = 40
    /// Longest name held.
    public static let nameCapacity = 24

    /// An empty field (no name, no value): the unused slot of `InlineHeaderFields`.
    @usableFromInline init() {}

    /// A field named `name` with `value`'s bytes; nil when either is longer than it can hold.
    public init?(_ name: String, bytes value: UnsafeBufferPointer<UInt8>) {
        guard value.count <= Self.capacity, name.utf8.count <= Self.nameCapacity else { return nil }
        nameCount = UInt8(name.utf8.count)
        var name = name
        name.withUTF8 { bytes in
            if let base = bytes.baseAddress { withUnsafeMutableBytes(of: &nameStorage) { $0.baseAddress!.copyMemory(from: base, byteCount: bytes.count) } }
        }
        setValue(value)
    }

    /// This field's name with `value`; nil when the value is longer than `capacity`. A route
    /// keeps a field with its name once and makes each answer's field from it: no name to copy.
    @inlinable
    public func with(value: UnsafeBufferPointer<UInt8>) -> InlineHeaderField? {
        guard value.count <= Self.capacity else { return nil }
        var field = self
        field.setValue(value)
        return field
    }

    @inlinable
    mutating func setValue(_ value: UnsafeBufferPointer<UInt8>) {
        valueCount = UInt8(value.count)
        if let base = value.baseAddress {
            withUnsafeMutableBytes(of: &valueStorage) { $0.baseAddress!.copyMemory(from: base, byteCount: value.count) }
        }
    }

    /// The name's bytes, for the time of `body`.
    @inlinable
    public func withName<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try withUnsafeBytes(of: nameStorage) { raw in
            try body(UnsafeBufferPointer(start: raw.baseAddress!.assumingMemoryBound(to: UInt8.self), count: Int(nameCount)))
        }
    }

    /// The value's bytes, for the time of `body`.
    @inlinable
    public func withValue<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try withUnsafeBytes(of: valueStorage) { raw in
            try body(UnsafeBufferPointer(start: raw.baseAddress!.assumingMemoryBound(to: UInt8.self), count: Int(valueCount)))
        }
    }

    /// The name as a string (a name of up to 15 bytes is a small string: no allocation).
    public var name: String { withName { String(decoding: $0, as: UTF8.self) } }

    /// The value as a string (made here, for readers that need one).
    public var value: String { withValue { String(decoding: $0, as: UTF8.self) } }

    /// The field as an `HTTPHeader`.
    public var header: HTTPHeader { HTTPHeader(name, value) }

    public static func == (a: Self, b: Self) -> Bool {
        a.withName { x in b.withName { y in x.elementsEqual(y) } } && a.withValue { x in b.withValue { y in x.elementsEqual(y) } }
    }
}

/// The inline fields of one response: at most two, held in place (no array to allocate).
public struct InlineHeaderFields: Sendable, Equatable, Sequence {
    @usableFromInline var slot0 = InlineHeaderField()
    @usableFromInline var slot1 = InlineHeaderField()
    @usableFromInline var held: UInt8 = 0

    @inlinable
    public init() {}

    /// One field, or two (no variadic list: that would be an array per response).
    public init(_ first: InlineHeaderField, _ second: InlineHeaderField? = nil) {
        slot0 = first
        held = 1
        if let second {
            slot1 = second
            held = 2
        }
    }

    @inlinable public var count: Int { Int(held) }
    @inlinable public var isEmpty: Bool { held == 0 }

    /// The field at `index` (0 or 1, below `count`).
    @inlinable
    public subscript(index: Int) -> InlineHeaderField {
        precondition(index < count, "no inline header field \(index)")
        return index == 0 ? slot0 : slot1
    }

    /// Adds `field`; false (and nothing added) when two are held already.
    @discardableResult
    public mutating func append(_ field: InlineHeaderField) -> Bool {
        switch held {
        case 0: slot0 = field
        case 1: slot1 = field
        default: return false
        }
        held += 1
        return true
    }

    /// The first value for `name` (ASCII case-insensitive), or nil.
    public subscript(name: String) -> String? {
        first(where: { HTTPHeaders.namesMatch($0.name, name) })?.value
    }

    public func makeIterator() -> Iterator { Iterator(fields: self) }

    public struct Iterator: IteratorProtocol {
        fileprivate let fields: InlineHeaderFields
        fileprivate var index = 0
        public mutating func next() -> InlineHeaderField? {
            guard index < fields.count else { return nil }
            defer { index += 1 }
            return fields[index]
        }
    }

    public static func == (a: Self, b: Self) -> Bool { a.elementsEqual(b) }
}

import Foundation

/// A parsed JSON text: its root value plus the source bytes, so any finding can be placed at
/// a line and column.
public struct JSONDocument: Sendable {
    public let root: JSONValue
    /// Byte offset of the root value (after leading whitespace); nil when built in code.
    public let rootOffset: Int?
    /// The bytes that were parsed (empty when built in code).
    public let source: [UInt8]

    public init(root: JSONValue, rootOffset: Int? = nil, source: [UInt8] = []) {
        self.root = root
        self.rootOffset = rootOffset
        self.source = source
    }

    /// Parses `bytes` with the default options (depth 512).
    public static func parse(_ bytes: [UInt8]) throws(JSONParseError) -> JSONDocument {
        try JSONParser().parse(bytes)
    }

    public func value(at pointer: JSONPointer) -> JSONValue? { root.value(at: pointer) }

    /// Byte offset where the value at `pointer` starts, or of its nearest existing ancestor
    /// (so a finding about a missing key points at the object that lacks it).
    public func offset(of pointer: JSONPointer) -> Int? {
        guard var offset = rootOffset else { return nil }
        var current = root
        for token in pointer.tokens {
            switch current {
            case .object(let o):
                guard let m = o.member(token) else { return offset }
                current = m.value
                if let v = m.valueOffset { offset = v }
            case .array(let a):
                guard let i = JSONPointer.arrayIndex(token), i < a.count else { return offset }
                current = a[i]
                if let v = a.offset(of: i) { offset = v }
            default:
                return offset
            }
        }
        return offset
    }

    /// Line and column of the value at `pointer` (or its nearest ancestor); nil without source.
    public func location(of pointer: JSONPointer) -> JSONSourceLocation? {
        guard !source.isEmpty, let off = offset(of: pointer) else { return nil }
        return JSONSourceLocation(offset: off, in: source)
    }

    /// Line and column for many offsets in one pass over the source (findings of one report);
    /// offsets past the end of the source get none.
    public func locations(ofOffsets offsets: [Int]) -> [Int: JSONSourceLocation] {
        var result: [Int: JSONSourceLocation] = [:]
        let wanted = Set(offsets).sorted()
        guard !wanted.isEmpty else { return result }
        var counter = JSONLineCounter()
        source.withUnsafeBufferPointer { buf in
            for offset in wanted where offset >= 0 && offset <= buf.count {
                counter.advance(to: offset, in: buf)
                result[offset] = JSONSourceLocation(offset: offset, line: counter.line, column: counter.column)
            }
        }
        return result
    }

    public func location(atOffset offset: Int) -> JSONSourceLocation {
        JSONSourceLocation(offset: offset, in: source)
    }

    /// The exact bytes pushlab sends for this document: minified, keys in source order.
    public func minifiedBytes() -> [UInt8] { root.minifiedBytes() }
    /// UTF-8 byte count of `minifiedBytes()` — the size APNs and FCM limits apply to.
    public var minifiedByteCount: Int { root.minifiedByteCount }
}

import Foundation

/// A strict RFC 8259 parser that keeps everything a payload validator needs (see `JSONValue`)
/// and reports errors with line, column and byte offset. It runs on the gateway's hot path
/// (every APNs request body), so it works on raw bytes: no Foundation JSON, no per-character
/// `String` work; strings without escapes are decoded in one step after validating UTF-8.
public struct JSONParser: Sendable {
    public struct Options: Sendable {
        /// Deepest allowed nesting of arrays and objects; deeper input fails cleanly instead of
        /// exhausting the stack.
        public var maxDepth: Int
        /// Largest accepted input in bytes; nil for no limit (callers bound their input anyway).
        public var maxBytes: Int?
        public init(maxDepth: Int = 512, maxBytes: Int? = nil) {
            self.maxDepth = maxDepth
            self.maxBytes = maxBytes
        }
    }

    public var options: Options
    public init(options: Options = Options()) { self.options = options }

    public func parse(_ bytes: [UInt8]) throws(JSONParseError) -> JSONDocument {
        if let limit = options.maxBytes, bytes.count > limit {
            throw JSONParseError(reason: .tooLarge(bytes: bytes.count, limit: limit), offset: 0, line: 1, column: 1)
        }
        let result: Result<(JSONValue, Int), JSONParseFailure> = bytes.withUnsafeBufferPointer { buf in
            var reader = JSONByteReader(buf: buf, maxDepth: options.maxDepth)
            do throws(JSONParseFailure) {
                return .success(try reader.parseDocument())
            } catch {
                return .failure(error)
            }
        }
        switch result {
        case .success(let (root, rootOffset)):
            return JSONDocument(root: root, rootOffset: rootOffset, source: bytes)
        case .failure(let f):
            let loc = JSONSourceLocation(offset: f.offset, in: bytes)
            throw JSONParseError(reason: f.reason, offset: f.offset, line: loc.line, column: loc.column)
        }
    }

    public func parse(_ text: String) throws(JSONParseError) -> JSONDocument { try parse(Array(text.utf8)) }
    public func parse(_ data: Data) throws(JSONParseError) -> JSONDocument { try parse([UInt8](data)) }
}

/// Member names for `JSONIndex`, grouped by length: a lookup compares the key's bytes with the
/// few names of its length instead of hashing every key of the document.
public struct JSONMemberNames: Sendable, ExpressibleByArrayLiteral {
    private var byLength: [[[UInt8]]] = []

    public init(_ names: some Sequence<String>) {
        for name in names {
            let bytes = Array(name.utf8)
            if byLength.count <= bytes.count { byLength += Array(repeating: [], count: bytes.count + 1 - byLength.count) }
            if !byLength[bytes.count].contains(bytes) { byLength[bytes.count].append(bytes) }
        }
    }
    public init(arrayLiteral names: String...) { self.init(names) }

    public func contains(_ name: String) -> Bool {
        var name = name
        return name.withUTF8 { contains($0) }
    }

    /// `contains(_:)` for a name's UTF-8 bytes.
    public func contains(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard bytes.count < byLength.count else { return false }
        guard !bytes.isEmpty else { return !byLength[0].isEmpty }
        for candidate in byLength[bytes.count] where candidate.withUnsafeBufferPointer({ memcmp($0.baseAddress!, bytes.baseAddress!, bytes.count) == 0 }) {
            return true
        }
        return false
    }

    /// Every name, for tests.
    public var all: [String] { byLength.flatMap { $0.map { String(decoding: $0, as: UTF8.self) } } }
}

struct JSONParseFailure: Error {
    let reason: JSONParseError.Reason
    let offset: Int
}

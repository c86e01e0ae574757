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
        try parse(bytes, keep: nil)
    }

    /// Parses `bytes` as `parse(_:)` does — it accepts and refuses exactly the same input — but
    /// objects keep only the members named in `names` (at any depth); the values of the others
    /// are validated without being built (the metrics collector reads a few fields of bodies
    /// that carry a whole CDP `context`). A refused input's error may differ in detail from
    /// `parse(_:)`'s: callers that show it parse again with `parse(_:)`.
    public func parse(_ bytes: [UInt8], keepingMembersNamed names: JSONMemberNames) throws(JSONParseError) -> JSONDocument {
        try parse(bytes, keep: names)
    }

    private func parse(_ bytes: [UInt8], keep: JSONMemberNames?) throws(JSONParseError) -> JSONDocument {
        if let limit = options.maxBytes, bytes.count > limit {
            throw JSONParseError(reason: .tooLarge(bytes: bytes.count, limit: limit), offset: 0, line: 1, column: 1)
        }
        let result: Result<(JSONValue, Int), JSONParseFailure> = bytes.withUnsafeBufferPointer { buf in
            var reader = JSONByteReader(buf: buf, maxDepth: options.maxDepth)
            reader.keep = keep
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

/// Member names for `JSONParser.parse(_:keepingMembersNamed:)`, grouped by length: a lookup
/// compares the few names of the key's length instead of hashing every key of the document.
public struct JSONMemberNames: Sendable, ExpressibleByArrayLiteral {
    private var byLength: [[String]] = []

    public init(_ names: some Sequence<String>) {
        for name in names {
            let n = name.utf8.count
            if byLength.count <= n { byLength += Array(repeating: [], count: n + 1 - byLength.count) }
            if !byLength[n].contains(name) { byLength[n].append(name) }
        }
    }
    public init(arrayLiteral names: String...) { self.init(names) }

    public func contains(_ name: String) -> Bool {
        let n = name.utf8.count
        guard n < byLength.count else { return false }
        for candidate in byLength[n] where candidate == name { return true }
        return false
    }

    /// Every name, for tests.
    public var all: [String] { byLength.flatMap { $0 } }
}

struct JSONParseFailure: Error {
    let reason: JSONParseError.Reason
    let offset: Int
}

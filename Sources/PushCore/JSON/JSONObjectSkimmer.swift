/// Answers "is this a valid JSON object, and what string does its top-level member `key`
/// hold?" without building the document: the gateway asks it of every APNs body, where a full
/// parse allocated every key and value only to throw them away
/// (benchmarks/results/gateway.md).
///
/// It walks the same `JSONByteReader` as `JSONParser` and hands every scalar (numbers,
/// literals, strings with escapes) and every error to the parser's own routines, so it accepts
/// exactly what `JSONParser` accepts (`JSONObjectSkimmerTests` checks both on the bad-input
/// corpus and on generated documents).
public enum JSONObjectSkimmer {
    public enum Verdict: Equatable, Sendable {
        /// Not JSON, or JSON whose root is not an object.
        case notAnObject
        /// A valid JSON object; `captured` is the last top-level `key` member's value when that
        /// value is a string.
        case object(captured: String?)
    }

    /// `maxDepth` defaults to the parser's, so both refuse the same nesting.
    public static func skim(_ bytes: [UInt8], capturing key: String,
                            maxDepth: Int = JSONParser.Options().maxDepth) -> Verdict {
        skim(bytes, capturingUTF8: Array(key.utf8), maxDepth: maxDepth)
    }

    /// `skim(_:capturing:)` with the key as UTF-8 bytes, for a caller that keeps them (the
    /// gateway skims every APNs body: the key's array was an allocation per push).
    public static func skim(_ bytes: [UInt8], capturingUTF8 target: [UInt8],
                            maxDepth: Int = JSONParser.Options().maxDepth) -> Verdict {
        bytes.withUnsafeBufferPointer { buf in
            var reader = JSONByteReader(buf: buf, maxDepth: maxDepth)
            do throws(JSONParseFailure) {
                return try reader.skimDocument(capturing: target)
            } catch {
                return .notAnObject
            }
        }
    }
}

extension JSONByteReader {
    mutating func skimDocument(capturing key: [UInt8]) throws(JSONParseFailure) -> JSONObjectSkimmer.Verdict {
        if buf.count >= 3, buf[0] == 0xEF, buf[1] == 0xBB, buf[2] == 0xBF { throw JSONParseFailure(reason: .byteOrderMark, offset: 0) }
        try skimWhitespace()
        guard i < buf.count, buf[i] == UInt8(ascii: "{") else { return .notAnObject }
        var captured: String?
        try skimObject(capturing: key, into: &captured)
        try skimWhitespace()
        if i < buf.count { throw JSONParseFailure(reason: .trailingContent, offset: i) }
        return .object(captured: captured)
    }

    /// `skipWhitespace`, asked first whether there is any: compact JSON (every body the
    /// gateway's clients send) has none, and the call per token was a share of the skim.
    @inline(__always)
    mutating func skimWhitespace() throws(JSONParseFailure) {
        if i < buf.count, buf[i] > 0x20, buf[i] != UInt8(ascii: "/") { return }
        try skipWhitespace()
    }

    /// Validates one value, building nothing for objects, arrays and plain strings.
    mutating func skimValue() throws(JSONParseFailure) {
        guard i < buf.count else { _ = try parseValue(); return }
        switch buf[i] {
        case UInt8(ascii: "{"):
            var unused: String?
            try skimObject(capturing: nil, into: &unused)
        case UInt8(ascii: "["): try skimArray()
        case UInt8(ascii: "\""): _ = try skimString()
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): _ = try scanNumber()
        default: _ = try parseValue()  // literals and every error, as the parser does them
        }
    }

    /// `key` nil: validate only. Otherwise a string value of a member named `key` lands in
    /// `captured` (the last one wins, like `JSONObject`'s subscript).
    private mutating func skimObject(capturing key: [UInt8]?, into captured: inout String?) throws(JSONParseFailure) {
        if try openContainer(closedBy: UInt8(ascii: "}")) { return }
        repeat {
            guard i < buf.count, buf[i] == UInt8(ascii: "\"") else { throw JSONParseFailure(reason: .unquotedKey, offset: i) }
            let keyStart = i
            var isTarget = false
            if let key {
                if let raw = try skimString() {
                    isTarget = raw.count == key.count && key.indices.allSatisfy { buf[raw.lowerBound + $0] == key[$0] }
                } else {
                    // Rare: a key written with escapes is compared decoded, as the parser would.
                    i = keyStart
                    isTarget = Array(try parseString().utf8) == key
                }
            } else {
                _ = try skimString()
            }
            try skimColon()
            if isTarget {
                if i < buf.count, buf[i] == UInt8(ascii: "\"") { captured = try parseString() } else { captured = nil; try skimValue() }
            } else {
                try skimValue()
            }
        } while try continueContainer(closedBy: UInt8(ascii: "}"))
    }

    private mutating func skimArray() throws(JSONParseFailure) {
        if try openContainer(closedBy: UInt8(ascii: "]")) { return }
        repeat {
            try requireElement()
            try skimValue()
        } while try continueContainer(closedBy: UInt8(ascii: "]"))
    }

    /// Enters the object or array whose opening byte is at `i`: true (and past its end) when it
    /// is empty, else false at its first member or element.
    @inline(__always)
    mutating func openContainer(closedBy close: UInt8) throws(JSONParseFailure) -> Bool {
        try enter()
        i += 1  // { or [
        try skimWhitespace()
        guard i < buf.count, buf[i] == close else { return false }
        i += 1
        depth -= 1
        return true
    }

    /// After a member or an element: true at the next one (past the comma), false past the
    /// container's closing byte.
    @inline(__always)
    mutating func continueContainer(closedBy close: UInt8) throws(JSONParseFailure) -> Bool {
        try skimWhitespace()
        guard i < buf.count else {
            throw JSONParseFailure(reason: .unexpectedEnd(expected: close == UInt8(ascii: "}") ? "',' or '}'" : "',' or ']'"), offset: i)
        }
        if buf[i] == UInt8(ascii: ",") {
            i += 1
            try skimWhitespace()
            return true
        }
        guard buf[i] == close else { throw JSONParseFailure(reason: .trailingContent, offset: i) }
        i += 1
        depth -= 1
        return false
    }

    /// Between a member's key and its value: the colon, and whitespace around it.
    @inline(__always)
    mutating func skimColon() throws(JSONParseFailure) {
        try skimWhitespace()
        guard i < buf.count, buf[i] == UInt8(ascii: ":") else { throw JSONParseFailure(reason: .trailingContent, offset: i) }
        i += 1
        try skimWhitespace()
    }

    /// An array's element must start here (a `]` after a comma is a trailing comma).
    @inline(__always)
    mutating func requireElement() throws(JSONParseFailure) {
        guard i < buf.count, buf[i] != UInt8(ascii: "]") else { throw JSONParseFailure(reason: .trailingComma, offset: i) }
    }

    /// Validates the string at `i` (opening quote) and leaves `i` after it. Returns the raw
    /// bytes between the quotes when the string has no escapes; nil when it has (then the
    /// parser's own escape handling validated it).
    mutating func skimString() throws(JSONParseFailure) -> Range<Int>? {
        let open = i
        var k = i + 1
        while k < buf.count {
            // Plain bytes eight at a time (the gateway skims every APNs body, and its strings are
            // mostly plain ASCII): the first byte that needs a look is found at once and handed
            // to the byte step below (a short string ends in its first word).
            k = buf.endOfPlainJSONText(from: k)
            guard k < buf.count else { break }
            let b = buf[k]
            if b == UInt8(ascii: "\"") {
                i = k + 1
                return open + 1..<k
            }
            if b == UInt8(ascii: "\\") || b < 0x20 { break }
            let n = utf8SequenceLength(at: k)
            if n == 0 { break }
            k += n
        }
        // Escapes, or an error: the parser's path decides (and reports) it.
        i = open
        _ = try parseString()
        return nil
    }
}

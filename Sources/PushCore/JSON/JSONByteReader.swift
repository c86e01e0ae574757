import Foundation

/// The cursor over the input bytes. Confined to one `parse` call.
struct JSONByteReader {
    let buf: UnsafeBufferPointer<UInt8>
    let maxDepth: Int
    var i = 0
    var depth = 0
    /// Scratch space for strings with escapes, reused across strings.
    var scratch: [UInt8] = []

    init(buf: UnsafeBufferPointer<UInt8>, maxDepth: Int) {
        self.buf = buf
        self.maxDepth = maxDepth
    }

    private func fail(_ reason: JSONParseError.Reason, at offset: Int) -> JSONParseFailure {
        JSONParseFailure(reason: reason, offset: offset)
    }

    mutating func parseDocument() throws(JSONParseFailure) -> (JSONValue, Int) {
        if buf.count >= 3, buf[0] == 0xEF, buf[1] == 0xBB, buf[2] == 0xBF { throw fail(.byteOrderMark, at: 0) }
        try skipWhitespace()
        guard i < buf.count else { throw fail(.empty, at: i) }
        let start = i
        let value = try parseValue()
        try skipWhitespace()
        if i < buf.count { throw fail(.trailingContent, at: i) }
        return (value, start)
    }

    /// Skips JSON whitespace; a `/` that starts a comment is reported as a comment.
    mutating func skipWhitespace() throws(JSONParseFailure) {
        while i < buf.count {
            switch buf[i] {
            case 0x20, 0x0A, 0x0D, 0x09: i += 1
            case UInt8(ascii: "/"):
                if i + 1 < buf.count, buf[i + 1] == UInt8(ascii: "/") || buf[i + 1] == UInt8(ascii: "*") {
                    throw fail(.comment, at: i)
                }
                return
            default: return
            }
        }
    }

    mutating func parseValue() throws(JSONParseFailure) -> JSONValue {
        guard i < buf.count else { throw fail(.unexpectedEnd(expected: "a value"), at: i) }
        switch buf[i] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "+"), UInt8(ascii: "."): throw fail(.invalidNumber(wordAt(i)), at: i)
        case UInt8(ascii: "N"), UInt8(ascii: "I"):
            let word = wordAt(i)
            if word == "NaN" || word.hasPrefix("Infinity") { throw fail(.invalidNumber(word), at: i) }
            throw unexpected(expected: "a value")
        case UInt8(ascii: "'"): throw fail(.singleQuotes, at: i)
        default: throw unexpected(expected: "a value")
        }
    }

    /// An error for the byte at `i`, telling binary data and bad UTF-8 apart from a plain typo.
    func unexpected(expected: String) -> JSONParseFailure {
        guard i < buf.count else { return fail(.unexpectedEnd(expected: expected), at: i) }
        let b = buf[i]
        if b < 0x20 || b == 0x7F { return fail(.binaryData(byte: b), at: i) }
        if b >= 0x80 {
            let n = utf8SequenceLength(at: i)
            if n == 0 { return fail(.invalidUTF8, at: i) }
            let text = String(decoding: UnsafeBufferPointer(rebasing: buf[i..<i + n]), as: UTF8.self)
            return fail(.unexpectedCharacter(found: "character '\(text)'", expected: expected), at: i)
        }
        return fail(.unexpectedCharacter(found: "character '\(Character(Unicode.Scalar(b)))'", expected: expected), at: i)
    }

    func wordAt(_ start: Int) -> String {
        var end = start
        while end < buf.count, end - start < 32 {
            let b = buf[end]
            if b <= 0x20 || b == UInt8(ascii: ",") || b == UInt8(ascii: "}") || b == UInt8(ascii: "]") || b >= 0x80 { break }
            end += 1
        }
        return String(decoding: UnsafeBufferPointer(rebasing: buf[start..<max(end, start)]), as: UTF8.self)
    }

    mutating func literal(_ word: StaticString) throws(JSONParseFailure) {
        let n = word.utf8CodeUnitCount
        let p = word.utf8Start
        for k in 0..<n {
            guard i + k < buf.count else { throw fail(.unexpectedEnd(expected: "'\(word)'"), at: i + k) }
            guard buf[i + k] == p[k] else {
                throw fail(.unexpectedCharacter(found: "'\(wordAt(i))'", expected: "a value (true, false, null, a number, a string, an array or an object)"), at: i)
            }
        }
        i += n
    }

    mutating func enter() throws(JSONParseFailure) {
        depth += 1
        if depth > maxDepth { throw fail(.nestingTooDeep(limit: maxDepth), at: i) }
    }

    mutating func parseObject() throws(JSONParseFailure) -> JSONValue {
        try enter()
        i += 1  // {
        var members: [JSONMember] = []
        try skipWhitespace()
        if i < buf.count, buf[i] == UInt8(ascii: "}") {
            i += 1
            depth -= 1
            return .object(JSONObject(members))
        }
        while true {
            guard i < buf.count else { throw fail(.unexpectedEnd(expected: "a key or '}'"), at: i) }
            let c = buf[i]
            if c != UInt8(ascii: "\"") {
                if c == UInt8(ascii: "}") && !members.isEmpty { throw fail(.trailingComma, at: i) }
                if c == UInt8(ascii: "'") { throw fail(.singleQuotes, at: i) }
                if isIdentifierStart(c) { throw fail(.unquotedKey, at: i) }
                throw unexpected(expected: "a double-quoted key")
            }
            let keyOffset = i
            let key = try parseString()
            try skipWhitespace()
            guard i < buf.count else { throw fail(.unexpectedEnd(expected: "':'"), at: i) }
            guard buf[i] == UInt8(ascii: ":") else { throw unexpected(expected: "':' after the key \"\(key)\"") }
            i += 1
            try skipWhitespace()
            let valueOffset = i
            let value = try parseValue()
            members.append(JSONMember(key: key, value: value, keyOffset: keyOffset, valueOffset: valueOffset))
            try skipWhitespace()
            guard i < buf.count else { throw fail(.unexpectedEnd(expected: "',' or '}'"), at: i) }
            if buf[i] == UInt8(ascii: ",") {
                i += 1
                try skipWhitespace()
                continue
            }
            if buf[i] == UInt8(ascii: "}") {
                i += 1
                depth -= 1
                return .object(JSONObject(members))
            }
            throw unexpected(expected: "',' or '}' after the value of \"\(key)\"")
        }
    }

    mutating func parseArray() throws(JSONParseFailure) -> JSONValue {
        try enter()
        i += 1  // [
        var elements: [JSONValue] = []
        var offsets: [Int] = []
        try skipWhitespace()
        if i < buf.count, buf[i] == UInt8(ascii: "]") {
            i += 1
            depth -= 1
            return .array(JSONArray(elements, offsets: offsets))
        }
        while true {
            guard i < buf.count else { throw fail(.unexpectedEnd(expected: "a value or ']'"), at: i) }
            if buf[i] == UInt8(ascii: "]") && !elements.isEmpty { throw fail(.trailingComma, at: i) }
            offsets.append(i)
            elements.append(try parseValue())
            try skipWhitespace()
            guard i < buf.count else { throw fail(.unexpectedEnd(expected: "',' or ']'"), at: i) }
            if buf[i] == UInt8(ascii: ",") {
                i += 1
                try skipWhitespace()
                continue
            }
            if buf[i] == UInt8(ascii: "]") {
                i += 1
                depth -= 1
                return .array(JSONArray(elements, offsets: offsets))
            }
            throw unexpected(expected: "',' or ']'")
        }
    }

    func isIdentifierStart(_ c: UInt8) -> Bool {
        (c >= UInt8(ascii: "a") && c <= UInt8(ascii: "z")) || (c >= UInt8(ascii: "A") && c <= UInt8(ascii: "Z")) || c == UInt8(ascii: "_")
    }

    mutating func parseNumber() throws(JSONParseFailure) -> JSONNumber {
        let range = try scanNumber()
        return JSONNumber(literal: String(decoding: UnsafeBufferPointer(rebasing: buf[range]), as: UTF8.self))
    }

    /// Validates the number at `i`, leaves `i` after it and returns its bytes (the skimmer and
    /// the index build no string for it).
    mutating func scanNumber() throws(JSONParseFailure) -> Range<Int> {
        let start = i
        if buf[i] == UInt8(ascii: "-") { i += 1 }
        guard i < buf.count, isDigit(buf[i]) else { throw fail(.invalidNumber(wordAt(start)), at: start) }
        if buf[i] == UInt8(ascii: "0") {
            i += 1
            if i < buf.count, isDigit(buf[i]) { throw fail(.invalidNumber(wordAt(start)), at: start) }
        } else {
            while i < buf.count, isDigit(buf[i]) { i += 1 }
        }
        if i < buf.count, buf[i] == UInt8(ascii: ".") {
            i += 1
            guard i < buf.count, isDigit(buf[i]) else { throw fail(.invalidNumber(wordAt(start)), at: start) }
            while i < buf.count, isDigit(buf[i]) { i += 1 }
        }
        if i < buf.count, buf[i] == UInt8(ascii: "e") || buf[i] == UInt8(ascii: "E") {
            i += 1
            if i < buf.count, buf[i] == UInt8(ascii: "+") || buf[i] == UInt8(ascii: "-") { i += 1 }
            guard i < buf.count, isDigit(buf[i]) else { throw fail(.invalidNumber(wordAt(start)), at: start) }
            while i < buf.count, isDigit(buf[i]) { i += 1 }
        }
        // A letter glued to the number (`1x`, `0x1F`) is a bad number, not "trailing content".
        if i < buf.count, isIdentifierStart(buf[i]) { throw fail(.invalidNumber(wordAt(start)), at: start) }
        return start..<i
    }

    @inline(__always) func isDigit(_ c: UInt8) -> Bool { c >= 0x30 && c <= 0x39 }
}

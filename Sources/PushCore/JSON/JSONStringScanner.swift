import Foundation

// String scanning for `JSONByteReader`: validates UTF-8 as it goes (RFC 3629 — no overlongs,
// no surrogates, nothing above U+10FFFF) so an invalid byte is reported at its offset instead
// of being silently replaced.
extension JSONByteReader {
    /// Parses the string starting at the opening quote at `i`; leaves `i` after the closing quote.
    mutating func parseString() throws(JSONParseFailure) -> String {
        let open = i
        i += 1
        let start = i
        // Fast path: no escapes — validate, then decode the slice in one go. Plain ASCII is
        // passed eight bytes at a time (`endOfPlainJSONText`); the loop stops at the rest.
        while true {
            i = buf.endOfPlainJSONText(from: i)
            guard i < buf.count else { break }
            let b = buf[i]
            if b == UInt8(ascii: "\"") {
                let s = String(decoding: UnsafeBufferPointer(rebasing: buf[start..<i]), as: UTF8.self)
                i += 1
                return s
            }
            if b == UInt8(ascii: "\\") { break }
            if b < 0x20 { throw JSONParseFailure(reason: .controlCharacterInString(byte: b), offset: i) }
            let n = utf8SequenceLength(at: i)
            if n == 0 { throw JSONParseFailure(reason: .invalidUTF8, offset: i) }
            i += n
        }
        guard i < buf.count else { throw JSONParseFailure(reason: .unexpectedEnd(expected: "'\"' to close the string opened at byte \(open)"), offset: i) }
        // Slow path: copy what we have, then decode escapes.
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: UnsafeBufferPointer(rebasing: buf[start..<i]))
        while true {
            let plainEnd = buf.endOfPlainJSONText(from: i)
            scratch.append(contentsOf: UnsafeBufferPointer(rebasing: buf[i..<plainEnd]))
            i = plainEnd
            guard i < buf.count else { break }
            let b = buf[i]
            if b == UInt8(ascii: "\"") {
                i += 1
                return String(decoding: scratch, as: UTF8.self)
            }
            if b == UInt8(ascii: "\\") {
                try parseEscape()
                continue
            }
            if b < 0x20 { throw JSONParseFailure(reason: .controlCharacterInString(byte: b), offset: i) }
            let n = utf8SequenceLength(at: i)
            if n == 0 { throw JSONParseFailure(reason: .invalidUTF8, offset: i) }
            scratch.append(contentsOf: UnsafeBufferPointer(rebasing: buf[i..<i + n]))
            i += n
        }
        throw JSONParseFailure(reason: .unexpectedEnd(expected: "'\"' to close the string opened at byte \(open)"), offset: i)
    }

    private mutating func parseEscape() throws(JSONParseFailure) {
        let at = i
        guard i + 1 < buf.count else { throw JSONParseFailure(reason: .unexpectedEnd(expected: "an escape sequence"), offset: i) }
        let c = buf[i + 1]
        i += 2
        if let byte = JSONEscape.byte(ofShortEscape: c) {
            scratch.append(byte)
            return
        }
        switch c {
        case UInt8(ascii: "u"):
            var scalar = try hex4(at: at)
            if (0xD800...0xDBFF).contains(scalar) {
                // A high surrogate must be followed by `\uDC00`–`\uDFFF`.
                guard i + 1 < buf.count, buf[i] == UInt8(ascii: "\\"), buf[i + 1] == UInt8(ascii: "u") else {
                    throw JSONParseFailure(reason: .loneSurrogate, offset: at)
                }
                i += 2
                let low = try hex4(at: at)
                guard (0xDC00...0xDFFF).contains(low) else { throw JSONParseFailure(reason: .loneSurrogate, offset: at) }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(scalar) {
                throw JSONParseFailure(reason: .loneSurrogate, offset: at)
            }
            appendUTF8(scalar)
        default:
            let shown = c < 0x80 && c >= 0x20 ? "\\\(Character(Unicode.Scalar(c)))" : String(format: "\\ followed by byte 0x%02X", c)
            throw JSONParseFailure(reason: .invalidEscape(shown), offset: at)
        }
    }

    /// Reads four hex digits at `i` (just after `\u`).
    private mutating func hex4(at escapeOffset: Int) throws(JSONParseFailure) -> UInt32 {
        guard i + 4 <= buf.count else { throw JSONParseFailure(reason: .invalidEscape("\\u needs four hex digits"), offset: escapeOffset) }
        var v: UInt32 = 0
        for k in 0..<4 {
            let b = buf[i + k]
            let d: UInt32
            switch b {
            case 0x30...0x39: d = UInt32(b - 0x30)
            case 0x41...0x46: d = UInt32(b - 0x41 + 10)
            case 0x61...0x66: d = UInt32(b - 0x61 + 10)
            default: throw JSONParseFailure(reason: .invalidEscape("\\u needs four hex digits"), offset: escapeOffset)
            }
            v = v << 4 | d
        }
        i += 4
        return v
    }

    private mutating func appendUTF8(_ v: UInt32) {
        switch v {
        case 0..<0x80: scratch.append(UInt8(v))
        case 0x80..<0x800:
            scratch.append(UInt8(0xC0 | (v >> 6)))
            scratch.append(UInt8(0x80 | (v & 0x3F)))
        case 0x800..<0x10000:
            scratch.append(UInt8(0xE0 | (v >> 12)))
            scratch.append(UInt8(0x80 | ((v >> 6) & 0x3F)))
            scratch.append(UInt8(0x80 | (v & 0x3F)))
        default:
            scratch.append(UInt8(0xF0 | (v >> 18)))
            scratch.append(UInt8(0x80 | ((v >> 12) & 0x3F)))
            scratch.append(UInt8(0x80 | ((v >> 6) & 0x3F)))
            scratch.append(UInt8(0x80 | (v & 0x3F)))
        }
    }

    /// Length of the well-formed UTF-8 sequence starting at `p` (a byte ≥ 0x80), or 0 if it is
    /// not well formed.
    func utf8SequenceLength(at p: Int) -> Int {
        let b0 = buf[p]
        let n: Int
        var lo: UInt8 = 0x80, hi: UInt8 = 0xBF  // allowed range of the second byte
        switch b0 {
        case 0xC2...0xDF: n = 2
        case 0xE0: n = 3; lo = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: n = 3
        case 0xED: n = 3; hi = 0x9F
        case 0xF0: n = 4; lo = 0x90
        case 0xF1...0xF3: n = 4
        case 0xF4: n = 4; hi = 0x8F
        default: return 0
        }
        guard p + n <= buf.count else { return 0 }
        let b1 = buf[p + 1]
        guard b1 >= lo && b1 <= hi else { return 0 }
        for k in 2..<max(n, 2) where k < n {
            guard buf[p + k] & 0xC0 == 0x80 else { return 0 }
        }
        return n
    }
}

/// JSON's two-character escapes (RFC 8259 §7), one definition for the parser and the readers
/// that decode a known form by hand (the App Group pending-metrics file).
public enum JSONEscape {
    /// The byte `\X` stands for, for X one of `"` `\` `/` `b` `f` `n` `r` `t`; nil for any other
    /// byte (including `u`, whose four hex digits the caller reads).
    @inline(__always)
    public static func byte(ofShortEscape x: UInt8) -> UInt8? {
        switch x {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): return x
        case UInt8(ascii: "b"): return 0x08
        case UInt8(ascii: "f"): return 0x0C
        case UInt8(ascii: "n"): return 0x0A
        case UInt8(ascii: "r"): return 0x0D
        case UInt8(ascii: "t"): return 0x09
        default: return nil
        }
    }

    /// The text of the JSON string whose opening quote is `bytes[quote]`, read as the parser
    /// reads strings (`JSONByteReader.parseString`: every escape of RFC 8259 §7, surrogate pairs
    /// joined, UTF-8 validated); nil for a control character, invalid UTF-8, a bad escape or a
    /// lone surrogate, or when the bytes end first. For readers that decode a known form by
    /// hand and meet a string with escapes they do not read themselves.
    public static func decodedText(_ bytes: [UInt8], quoteAt quote: Int) -> String? {
        guard bytes.indices.contains(quote), bytes[quote] == UInt8(ascii: "\"") else { return nil }
        return bytes.withUnsafeBufferPointer { buf -> String? in
            var reader = JSONByteReader(buf: buf, maxDepth: 1)
            reader.i = quote
            return try? reader.parseString()
        }
    }
}

import Foundation

// Serialisation back to bytes. The minified form is what pushlab sends: no whitespace, keys in
// source order (duplicates kept, as written), numbers as their literal text, strings as raw
// UTF-8 with only `"`, `\` and control characters escaped.
extension JSONValue {
    public func minifiedBytes() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        write(to: &out, indent: nil, level: 0)
        return out
    }

    public var minifiedString: String { String(decoding: minifiedBytes(), as: UTF8.self) }

    /// Indented form for people (`pushlab payload`), `indent` spaces per level.
    public func prettyPrinted(indent: Int = 2) -> String {
        var out: [UInt8] = []
        write(to: &out, indent: indent, level: 0)
        return String(decoding: out, as: UTF8.self)
    }

    /// Byte count of `minifiedBytes()` without building it.
    public var minifiedByteCount: Int {
        switch self {
        case .null: return 4
        case .bool(let b): return b ? 4 : 5
        case .number(let n): return n.text.utf8.count
        case .string(let s): return JSONValue.escapedCount(s)
        case .array(let a):
            var n = 2 + max(a.count - 1, 0)
            for e in a.elements { n += e.minifiedByteCount }
            return n
        case .object(let o):
            var n = 2 + max(o.count - 1, 0)
            for m in o.members { n += JSONValue.escapedCount(m.key) + 1 + m.value.minifiedByteCount }
            return n
        }
    }

    private func write(to out: inout [UInt8], indent: Int?, level: Int) {
        switch self {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .number(let n): out.append(contentsOf: n.text.utf8)
        case .string(let s): JSONValue.writeString(s, to: &out)
        case .array(let a):
            out.append(UInt8(ascii: "["))
            for (k, e) in a.elements.enumerated() {
                if k > 0 { out.append(UInt8(ascii: ",")) }
                JSONValue.newline(&out, indent, level + 1)
                e.write(to: &out, indent: indent, level: level + 1)
            }
            if !a.isEmpty { JSONValue.newline(&out, indent, level) }
            out.append(UInt8(ascii: "]"))
        case .object(let o):
            out.append(UInt8(ascii: "{"))
            for (k, m) in o.members.enumerated() {
                if k > 0 { out.append(UInt8(ascii: ",")) }
                JSONValue.newline(&out, indent, level + 1)
                JSONValue.writeString(m.key, to: &out)
                out.append(UInt8(ascii: ":"))
                if indent != nil { out.append(UInt8(ascii: " ")) }
                m.value.write(to: &out, indent: indent, level: level + 1)
            }
            if !o.isEmpty { JSONValue.newline(&out, indent, level) }
            out.append(UInt8(ascii: "}"))
        }
    }

    private static func newline(_ out: inout [UInt8], _ indent: Int?, _ level: Int) {
        guard let indent else { return }
        out.append(0x0A)
        out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: indent * level))
    }

    /// `s` as a JSON string literal, quotes included, escaped exactly as `minifiedBytes()`
    /// escapes it: for the few places that write JSON text by hand (JWT parts, error bodies,
    /// one result line per push), so there is one escaper in pushlab, not one per module.
    public static func quoted(_ s: String) -> String {
        // Tokens, ids and reason names rarely need escaping: skip the byte buffer for them.
        if !s.utf8.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C }) { return "\"" + s + "\"" }
        var out: [UInt8] = []
        out.reserveCapacity(s.utf8.count + 8)
        writeString(s, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends `s` as a JSON string literal (exactly `quoted(s)`'s bytes) to `out`: for JSON
    /// built straight into bytes, one request body per push.
    public static func appendQuoted(_ s: String, to out: inout [UInt8]) {
        writeString(s, to: &out)
    }

    /// `appendQuoted` with `/` written as `\/` as well: the bytes Foundation's `JSONEncoder`
    /// writes for a string without `.withoutEscapingSlashes` (the App Group pending-metrics file).
    public static func appendQuotedEscapingSlashes(_ s: String, to out: inout [UInt8]) {
        writeString(s, to: &out, escapingSlashes: true)
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    static func writeString(_ s: String, to out: inout [UInt8], escapingSlashes: Bool = false) {
        out.append(0x22)
        var s = s
        s.withUTF8 { bytes in
            var k = 0
            while k < bytes.count {
                // A run of bytes written as they are, found eight at a time (it stops at a byte
                // ≥ 0x80 too, which is written as it is below); `/` is not told apart, so
                // escaping it takes the byte loop.
                let end = escapingSlashes ? k : bytes.endOfPlainJSONText(from: k)
                if end > k {
                    out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[k..<end]))
                    k = end
                    continue
                }
                writeByte(bytes[k], to: &out, escapingSlashes: escapingSlashes)
                k += 1
            }
        }
        out.append(0x22)
    }

    @inline(__always)
    private static func writeByte(_ b: UInt8, to out: inout [UInt8], escapingSlashes: Bool) {
        switch b {
        case 0x22: out.append(0x5C); out.append(0x22)
        case 0x2F where escapingSlashes: out.append(0x5C); out.append(0x2F)
        case 0x5C: out.append(0x5C); out.append(0x5C)
        case 0x0A: out.append(0x5C); out.append(UInt8(ascii: "n"))
        case 0x0D: out.append(0x5C); out.append(UInt8(ascii: "r"))
        case 0x09: out.append(0x5C); out.append(UInt8(ascii: "t"))
        case 0x08: out.append(0x5C); out.append(UInt8(ascii: "b"))
        case 0x0C: out.append(0x5C); out.append(UInt8(ascii: "f"))
        case 0..<0x20:
            out.append(contentsOf: "\\u00".utf8)
            out.append(hexDigits[Int(b >> 4)])
            out.append(hexDigits[Int(b & 0xF)])
        default: out.append(b)
        }
    }

    static func escapedCount(_ s: String) -> Int {
        var s = s
        return s.withUTF8 { escapedCount($0) }
    }

    /// Two quotes, every byte, and what escaping adds; only the bytes that end a plain run
    /// (`endOfPlainJSONText`) are looked at one by one.
    private static func escapedCount(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var n = 2 + bytes.count
        var k = bytes.endOfPlainJSONText(from: 0)
        while k < bytes.count {
            switch bytes[k] {
            case 0x22, 0x5C, 0x0A, 0x0D, 0x09, 0x08, 0x0C: n += 1
            case 0..<0x20: n += 5
            default: break
            }
            k = bytes.endOfPlainJSONText(from: k + 1)
        }
        return n
    }
}

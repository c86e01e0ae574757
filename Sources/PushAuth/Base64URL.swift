/// Base64 in both alphabets: base64url without padding for JWT segments (RFC 7515 §2), and
/// standard base64 with padding for PEM bodies (RFC 7468). Table driven and strict: any byte
/// outside the alphabet fails the decode, so a garbled token or key is reported, not guessed.
public enum Base64URL {
    private static let urlAlphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// base64url without padding.
    public static func encode<Bytes: Collection>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        String(decoding: Base64Codec.encode(Array(bytes), alphabet: urlAlphabet, pad: false), as: UTF8.self)
    }

    public static func encode(_ string: String) -> String { encode(Array(string.utf8)) }

    /// Decodes base64url; padding is tolerated but not required. Nil on any invalid byte.
    public static func decode<Text: StringProtocol>(_ text: Text) -> [UInt8]? {
        var utf8 = Array(text.utf8)
        while utf8.last == UInt8(ascii: "=") { utf8.removeLast() }
        return Base64Codec.decode(utf8, url: true)
    }
}

/// The shared codec behind `Base64URL` and PEM bodies.
enum Base64Codec {
    static let standardAlphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    // 0xFF marks a byte outside the alphabet. One table for both alphabets; callers choose
    // which of '+/' or '-_' is allowed.
    private static let table: [UInt8] = {
        var t = [UInt8](repeating: 0xFF, count: 256)
        for (i, c) in standardAlphabet.enumerated() { t[Int(c)] = UInt8(i) }
        t[Int(UInt8(ascii: "-"))] = 62
        t[Int(UInt8(ascii: "_"))] = 63
        return t
    }()

    static func encode(_ bytes: [UInt8], alphabet: [UInt8], pad: Bool) -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var i = 0
        while i + 3 <= bytes.count {
            let n = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2])
            out.append(alphabet[Int(n >> 18 & 63)]); out.append(alphabet[Int(n >> 12 & 63)])
            out.append(alphabet[Int(n >> 6 & 63)]); out.append(alphabet[Int(n & 63)])
            i += 3
        }
        let rest = bytes.count - i
        if rest > 0 {
            let n = UInt32(bytes[i]) << 16 | (rest == 2 ? UInt32(bytes[i + 1]) << 8 : 0)
            out.append(alphabet[Int(n >> 18 & 63)]); out.append(alphabet[Int(n >> 12 & 63)])
            if rest == 2 { out.append(alphabet[Int(n >> 6 & 63)]) }
            if pad { out.append(contentsOf: [UInt8](repeating: UInt8(ascii: "="), count: 3 - rest)) }
        }
        return out
    }

    /// Decodes unpadded input (strip '=' first). `url` selects which two extra symbols are valid.
    static func decode(_ input: [UInt8], url: Bool) -> [UInt8]? {
        if input.count % 4 == 1 { return nil }
        var out = [UInt8]()
        out.reserveCapacity(input.count * 3 / 4)
        var acc: UInt32 = 0, bits = 0
        for c in input {
            if url ? (c == UInt8(ascii: "+") || c == UInt8(ascii: "/")) : (c == UInt8(ascii: "-") || c == UInt8(ascii: "_")) {
                return nil
            }
            let v = table[Int(c)]
            if v == 0xFF { return nil }
            acc = acc << 6 | UInt32(v)
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: acc >> UInt32(bits)))
            }
        }
        // Leftover bits must be zero (canonical encoding), as RFC 4648 §3.5 recommends.
        if bits > 0 && acc & ((1 << UInt32(bits)) - 1) != 0 { return nil }
        return out
    }
}

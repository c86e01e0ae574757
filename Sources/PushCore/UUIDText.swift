import Foundation

public extension UUID {
    /// Exactly what `UUID(uuidString:)` gives for `text`, without its `sscanf` for the canonical
    /// form: 36 characters, hex digits of either case in groups of 8-4-4-4-12 separated by `-`,
    /// read here by table. Any other text is handed to `UUID(uuidString:)` itself, which (it
    /// scans each byte pair with `%2hhx`) also takes some odd forms — spaces, `0x`, signs inside
    /// a group — that a strict reading would refuse. Readers of files that hold many UUIDs use it
    /// (the App Group pending-metrics file: `sscanf` was 6% of Fuzz/FuzzAppGroupFile's time).
    /// UUIDTextTests compares both over drawn canonical and nearly canonical strings.
    init?(fastUUIDString text: String) {
        var text = text
        if let id = text.withUTF8({ Self.canonical($0) }) {
            self = id
        } else if let id = UUID(uuidString: text) {
            self = id
        } else {
            return nil
        }
    }

    /// Appends `uuidString`'s bytes (uppercase hex digits in groups of 8-4-4-4-12 separated by
    /// `-`) to `out`, written by table in straight-line code (`uuidString` formats with
    /// `snprintf` and makes a String): writers of files that hold many UUIDs use it (the App Group
    /// pending-metrics file). UUIDTextTests compares the bytes with `uuidString`'s.
    func appendUUIDString(to out: inout [UInt8]) {
        var text: (UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0)  // 36 bytes used
        withUnsafeBytes(of: uuid) { id in
            withUnsafeMutableBytes(of: &text) { t in
                ("0123456789ABCDEF" as StaticString).withUTF8Buffer { hex in
                    // Byte `n` of the UUID as two digits at `at`.
                    @inline(__always) func put(_ n: Int, _ at: Int) {
                        t[at] = hex[Int(id[n] >> 4)]
                        t[at + 1] = hex[Int(id[n] & 0x0F)]
                    }
                    put(0, 0); put(1, 2); put(2, 4); put(3, 6); t[8] = UInt8(ascii: "-")
                    put(4, 9); put(5, 11); t[13] = UInt8(ascii: "-")
                    put(6, 14); put(7, 16); t[18] = UInt8(ascii: "-")
                    put(8, 19); put(9, 21); t[23] = UInt8(ascii: "-")
                    put(10, 24); put(11, 26); put(12, 28); put(13, 30); put(14, 32); put(15, 34)
                }
                out.append(contentsOf: UnsafeRawBufferPointer(rebasing: t[0..<36]))
            }
        }
    }

    /// The canonical form read by table; nil for anything else. The shape (hyphens at 8, 13, 18
    /// and 23, a hex digit of either case elsewhere) is `APNsID.isCanonical(bytes:)`'s, the one
    /// definition of a canonical UUID's text.
    private static func canonical(_ b: UnsafeBufferPointer<UInt8>) -> UUID? {
        guard APNsID.isCanonical(bytes: b) else { return nil }
        var bytes: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        hexDigitValue.withUnsafeBufferPointer { value in
            withUnsafeMutableBytes(of: &bytes) { out in
                var n = 0, at = 0
                while n < 16 {
                    out[n] = value[Int(b[at])] << 4 | value[Int(b[at + 1])]
                    n += 1
                    at += 2
                    // The four hyphens come after bytes 4, 6, 8 and 10.
                    if n == 4 || n == 6 || n == 8 || n == 10 { at += 1 }
                }
            }
        }
        return UUID(uuid: bytes)
    }

    /// 0...15 for `0-9`, `a-f`, `A-F` (`DeviceToken.isHexDigit`, the one definition); 0xFF for
    /// every other byte.
    private static let hexDigitValue: [UInt8] = (0..<256).map { c -> UInt8 in
        let b = UInt8(c)
        guard DeviceToken.isHexDigit(b) else { return 0xFF }
        // Digits below the letters; a letter's 0x20 bit set makes it lowercase.
        return b <= UInt8(ascii: "9") ? b - UInt8(ascii: "0") : (b | 0x20) - UInt8(ascii: "a") + 10
    }
}

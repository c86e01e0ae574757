/// Redis Cluster's key → slot mapping: CRC16 (XMODEM: polynomial 0x1021, initial value 0) of
/// the key modulo 16384. When the key holds a hash tag — a `{` followed later by a `}` with at
/// least one byte between them — only the bytes between the first `{` and the first `}` after
/// it are hashed, so `{pushlab.0}:work` and `{pushlab.0}:push:ID` share a slot.
/// (Redis Cluster specification, "Keys distribution model" and "Hash tags".)
public enum RedisHashSlot {
    public static let count = 16384

    public static func slot(of key: String) -> Int { slot(of: Array(key.utf8)) }

    public static func slot(of key: [UInt8]) -> Int {
        Int(crc16(hashed(key)) % UInt16(count))
    }

    /// The part of the key that is hashed: the hash tag's content when there is one.
    static func hashed(_ key: [UInt8]) -> ArraySlice<UInt8> {
        guard let open = key.firstIndex(of: UInt8(ascii: "{")) else { return key[...] }
        guard let close = key[(open + 1)...].firstIndex(of: UInt8(ascii: "}")), close > open + 1 else { return key[...] }
        return key[(open + 1)..<close]
    }

    static func crc16(_ bytes: ArraySlice<UInt8>) -> UInt16 {
        var crc: UInt16 = 0
        for byte in bytes {
            crc ^= UInt16(byte) << 8
            for _ in 0..<8 { crc = crc & 0x8000 != 0 ? (crc << 1) ^ 0x1021 : crc << 1 }
        }
        return crc
    }
}

import Foundation
import PushCore

/// Lowercase random UUIDs (v4) for `apns-id` and `apns-unique-id`, fast enough for the APNs hot
/// path: Foundation's `UUID().uuidString` costs a getrandom(2) call and a sprintf per id. One
/// generator seeded once from the system's random source; thread-safe.
final class MessageIDs: @unchecked Sendable {
    // Protected by `lock`.
    private var random: SeededRandom
    private let lock = NSLock()
    private static let hex = Array("0123456789abcdef".utf8)

    init() {
        var system = SystemRandomNumberGenerator()
        random = SeededRandom(seed: system.next())
    }

    func next() -> String {
        let (a, b) = lock.withLock { (random.next(), random.next()) }
        var bytes = [UInt8](repeating: 0, count: 16)
        for i in 0..<8 {
            bytes[i] = UInt8(truncatingIfNeeded: a >> (8 * i))
            bytes[8 + i] = UInt8(truncatingIfNeeded: b >> (8 * i))
        }
        bytes[6] = (bytes[6] & 0x0F) | 0x40  // version 4
        bytes[8] = (bytes[8] & 0x3F) | 0x80  // RFC 4122 variant
        return String(unsafeUninitializedCapacity: 36) { out in
            var o = 0
            for (i, byte) in bytes.enumerated() {
                if i == 4 || i == 6 || i == 8 || i == 10 { out[o] = UInt8(ascii: "-"); o += 1 }
                out[o] = Self.hex[Int(byte >> 4)]
                out[o + 1] = Self.hex[Int(byte & 0x0F)]
                o += 2
            }
            return o
        }
    }
}

/// ASCII-lowercases `s` only when it has an upper-case letter (HTTP/2 header names never do).
@inline(__always)
func asciiLowercased(_ s: String) -> String {
    s.utf8.contains { $0 >= 65 && $0 <= 90 } ? s.lowercased() : s
}

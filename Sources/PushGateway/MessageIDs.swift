import Foundation
import Synchronization
import PushCore

/// Lowercase random UUIDs (v4) for `apns-id` and `apns-unique-id`, fast enough for the APNs hot
/// path: Foundation's `UUID().uuidString` costs a getrandom(2) call and a sprintf per id. One
/// SplitMix64 sequence, seeded once from the system's random source, whose state is one atomic
/// counter: event loops on several threads draw ids without a lock.
final class MessageIDs: Sendable {
    private let state: Atomic<UInt64>

    init() {
        var system = SystemRandomNumberGenerator()
        state = Atomic(system.next())
    }

    /// 64 random bits from the same sequence (FCM message ids): `UInt64.random(in:)` made a
    /// getrandom(2) call per message.
    func nextUInt64() -> UInt64 {
        SeededRandom.mix(state.wrappingAdd(SeededRandom.increment, ordering: .relaxed).newValue)
    }

    func next() -> String {
        // Two steps of the sequence at once: the states `last - increment` and `last`.
        let last = state.wrappingAdd(2 &* SeededRandom.increment, ordering: .relaxed).newValue
        var a = SeededRandom.mix(last &- SeededRandom.increment)
        var b = SeededRandom.mix(last)
        // Byte k of the 16 is byte k of `a` (k < 8) or byte k-8 of `b`, little end first.
        a = (a & ~(0xF0 << 48)) | (0x40 << 48)  // byte 6: version 4
        b = (b & ~0xC0) | 0x80                  // byte 8: RFC 4122 variant
        // Each byte's two lowercase hex digits come from one 512-byte table (`hexPairs`), and
        // the 36 characters are written straight, dashes at 8, 13, 18 and 23: a branch per
        // nibble and per position was most of the id's cost on the APNs answer path.
        return String(unsafeUninitializedCapacity: 36) { out in
            Self.hexPairs.withUnsafeBufferPointer { pairs in
                @inline(__always) func put(_ word: UInt64, _ bytes: Range<Int>, at start: Int) {
                    var o = start
                    for k in bytes {
                        let pair = pairs[Int(UInt8(truncatingIfNeeded: word >> (8 * UInt64(k))))]
                        out[o] = UInt8(truncatingIfNeeded: pair)
                        out[o + 1] = UInt8(truncatingIfNeeded: pair >> 8)
                        o += 2
                    }
                }
                put(a, 0..<4, at: 0); out[8] = UInt8(ascii: "-")
                put(a, 4..<6, at: 9); out[13] = UInt8(ascii: "-")
                put(a, 6..<8, at: 14); out[18] = UInt8(ascii: "-")
                put(b, 0..<2, at: 19); out[23] = UInt8(ascii: "-")
                put(b, 2..<8, at: 24)
            }
            return 36
        }
    }

    /// Byte b's two lowercase hex digits, the first in the low byte.
    private static let hexPairs: [UInt16] = (0..<256).map { b in
        UInt16(hexDigit(UInt8(b >> 4))) | UInt16(hexDigit(UInt8(b & 0x0F))) << 8
    }

    @inline(__always)
    private static func hexDigit(_ nibble: UInt8) -> UInt8 { nibble < 10 ? 0x30 + nibble : 0x57 + nibble }
}

/// ASCII-lowercases `s` only when it has an upper-case letter (HTTP/2 header names never do).
@inline(__always)
func asciiLowercased(_ s: String) -> String {
    let hasUpper = s.utf8.withContiguousStorageIfAvailable { $0.contains { $0 >= 65 && $0 <= 90 } }
        ?? s.utf8.contains { $0 >= 65 && $0 <= 90 }
    return hasUpper ? s.lowercased() : s
}

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
        return String(unsafeUninitializedCapacity: 36) { out in
            var o = 0
            for k in 0..<16 {
                if k == 4 || k == 6 || k == 8 || k == 10 { out[o] = UInt8(ascii: "-"); o += 1 }
                let byte = UInt8(truncatingIfNeeded: k < 8 ? a >> (8 * k) : b >> (8 * (k - 8)))
                out[o] = Self.hexDigit(byte >> 4)
                out[o + 1] = Self.hexDigit(byte & 0x0F)
                o += 2
            }
            return o
        }
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

import Foundation
import Synchronization

/// Lowercase random UUIDs (version 4) without a system call per id, for the sender's `apns-id`
/// (`APNsID.generate`) and the gateway emulator's `apns-id` / `apns-unique-id` and FCM message
/// ids. An id correlates a push with its answer and the logs: it must be unique, not secret.
/// So the source is one SplitMix64 sequence (`SeededRandom`), seeded once from the system's
/// random source, whose state is one atomic counter: threads draw ids without a lock, ids of
/// one process differ as long as the counter does (the mix is a bijection), and two processes'
/// differ as random UUIDs do. Foundation's `UUID().uuidString` costs a getrandom(2) call and a
/// formatted print per id, which a bulk send and the APNs answer path paid on every push
/// (benchmarks/results/design-measurements.md, gateway-profile.md).
public final class RandomUUIDSource: Sendable {
    private let state: Atomic<UInt64>

    public init() {
        var system = SystemRandomNumberGenerator()
        state = Atomic(system.next())
    }

    /// 64 random bits from the same sequence (FCM message ids): `UInt64.random(in:)` made a
    /// getrandom(2) call per message.
    public func nextUInt64() -> UInt64 {
        SeededRandom.mix(state.wrappingAdd(SeededRandom.increment, ordering: .relaxed).newValue)
    }

    public func next() -> String { nextText().string }

    /// A new id as inline text (`CanonicalUUIDText`): no heap string, for answers and records
    /// that write the id's bytes where they go (the gateway emulator's apns-id and apns-unique-id).
    public func nextText() -> CanonicalUUIDText {
        // Two steps of the sequence at once: the states `last - increment` and `last`.
        let last = state.wrappingAdd(2 &* SeededRandom.increment, ordering: .relaxed).newValue
        var a = SeededRandom.mix(last &- SeededRandom.increment)
        var b = SeededRandom.mix(last)
        // Byte k of the 16 is byte k of `a` (k < 8) or byte k-8 of `b`, little end first.
        a = (a & ~(0xF0 << 48)) | (0x40 << 48)  // byte 6: version 4
        b = (b & ~0xC0) | 0x80                  // byte 8: variant 0b10 (RFC 9562 §5.4)
        // Each byte's two lowercase hex digits come from one 512-byte table (`hexPairs`), and
        // the 36 characters are written straight, dashes at 8, 13, 18 and 23: a branch per
        // nibble and per position was most of the id's cost on the APNs answer path.
        return CanonicalUUIDText { out in
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
        }
    }

    /// Byte b's two lowercase hex digits, the first in the low byte.
    private static let hexPairs: [UInt16] = (0..<256).map { b in
        UInt16(hexDigit(UInt8(b >> 4))) | UInt16(hexDigit(UInt8(b & 0x0F))) << 8
    }

    @inline(__always)
    private static func hexDigit(_ nibble: UInt8) -> UInt8 { nibble < 10 ? 0x30 + nibble : 0x57 + nibble }
}

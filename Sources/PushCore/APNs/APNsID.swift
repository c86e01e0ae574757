import Foundation
import Synchronization

/// `apns-id` values (docs/specs/apns.md "Request"): a canonical UUID, 8-4-4-4-12 hex digits.
/// The one rule for the sender's pre-flight, the validator and the gateway emulator. A value is
/// an id that passed it (`APNsRequest.apnsID`); the statics make and check ids as strings.
public struct APNsID: APNsHeaderRepresentable, CustomStringConvertible {
    /// The id exactly as given (APNs accepts either case and echoes what it got).
    public let header: String

    /// Nil unless `header` is a canonical UUID.
    public init?(header: String) {
        guard Self.isCanonical(header) else { return nil }
        self.header = header
    }

    public var description: String { header }

    /// A new id: a version 4 (random) UUID, lowercase as APNs writes them.
    public static func generate() -> String { source.next() }

    private static let source = RandomUUIDSource()

    /// True for 8-4-4-4-12 hex digits. Apple writes ids in lowercase and pushlab sends them so;
    /// APNs accepts either case and echoes what it got, so both pass here.
    public static func isCanonical(_ id: String) -> Bool {
        // Over the contiguous bytes when the string has them (the gateway asks this of every
        // request that carries an apns-id, as the sender's do; the UTF-8 view's iterator cost
        // more than the test, benchmarks/results/gateway-profile.md).
        func check(_ bytes: some Collection<UInt8>) -> Bool {
            guard bytes.count == 36 else { return false }
            var index = 0
            for b in bytes {
                if index == 8 || index == 13 || index == 18 || index == 23 {
                    if b != UInt8(ascii: "-") { return false }
                } else if !DeviceToken.isHexDigit(b) {
                    return false
                }
                index += 1
            }
            return true
        }
        return id.utf8.withContiguousStorageIfAvailable { check($0) } ?? check(id.utf8)
    }

    /// The client's `apns-id` when an answer may echo it: only a canonical one is (anything
    /// else is refused as BadMessageId, or replaced by a fresh id on a fault answer).
    public static func echoable(_ id: String?) -> String? { id.flatMap { isCanonical($0) ? $0 : nil } }
}

/// Version 4 UUIDs without a system call per id. An apns-id correlates a push with its answer
/// and the server's logs: it must be unique, not secret. So two seeds are drawn once from the
/// system generator and each id mixes a counter with them (SplitMix64's finalizer, a
/// bijection: ids of one process differ as long as the counter does, and two processes'
/// differ as random UUIDs do). Foundation's `UUID()` opens, reads and closes /dev/urandom
/// for every id, which a bulk send paid on every push (benchmarks/results/design-measurements.md).
final class RandomUUIDSource: Sendable {
    private let seeds: (UInt64, UInt64)
    private let counter = Atomic<UInt64>(0)

    init() {
        var system = SystemRandomNumberGenerator()
        seeds = (system.next(), system.next())
    }

    func next() -> String {
        let n = counter.wrappingAdd(1, ordering: .relaxed).newValue &* 0x9E37_79B9_7F4A_7C15
        // RFC 9562 §5.4: version 4 in the high nibble of octet 6, variant 0b10 in octet 8.
        let high = Self.mix(seeds.0 &+ n) & ~0xF000 | 0x4000
        let low = Self.mix(seeds.1 &+ n) & 0x3FFF_FFFF_FFFF_FFFF | 0x8000_0000_0000_0000
        return String(unsafeUninitializedCapacity: 36) { out in
            var at = 0
            for index in 0..<32 {  // hex digits, most significant first: 8-4-4-4-12
                if index == 8 || index == 12 || index == 16 || index == 20 {
                    out[at] = UInt8(ascii: "-")
                    at += 1
                }
                let word = index < 16 ? high : low
                let nibble = UInt8(truncatingIfNeeded: word >> UInt64(60 - 4 * (index % 16))) & 0xF
                out[at] = nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
                at += 1
            }
            return at
        }
    }

    private static func mix(_ x: UInt64) -> UInt64 {
        var z = x
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

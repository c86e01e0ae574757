import Foundation

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

    /// The id as inline text (no heap string): what the gateway emulator echoes and records.
    public var text: CanonicalUUIDText { CanonicalUUIDText(canonical: header) }

    /// A new id: a version 4 (random) UUID, lowercase as APNs writes them.
    public static func generate() -> String { source.next() }

    private static let source = RandomUUIDSource()

    /// True for 8-4-4-4-12 hex digits. Apple writes ids in lowercase and pushlab sends them so;
    /// APNs accepts either case and echoes what it got, so both pass here.
    public static func isCanonical(_ id: String) -> Bool {
        // Over the contiguous bytes when the string has them (the gateway asks this of every
        // request that carries an apns-id, as the sender's do; the UTF-8 view's iterator cost
        // more than the test, benchmarks/results/gateway-profile.md).
        let u = id.utf8
        guard u.count == canonicalLength else { return false }
        return u.withContiguousStorageIfAvailable { isCanonical(bytes: $0) }
            ?? Array(u).withUnsafeBufferPointer { isCanonical(bytes: $0) }
    }

    /// Bytes in a canonical id: 32 hex digits and 4 hyphens.
    public static let canonicalLength = 36

    /// `isCanonical` over bytes as received (an HTTP/2 field value), no string needed: a hyphen at
    /// 8, 13, 18 and 23, a hex digit (either case) everywhere else. One table load and an OR per
    /// digit, one branch at the end: the position-by-position compare chain was 1.6-1.7% of the
    /// emulator's samples for a push with a fresh apns-id (benchmarks/results/emulator-clients.md).
    public static func isCanonical(bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard bytes.count == canonicalLength else { return false }
        let hyphen = UInt8(ascii: "-")
        guard bytes[8] == hyphen, bytes[13] == hyphen, bytes[18] == hyphen, bytes[23] == hyphen else { return false }
        return DeviceToken.hexDigitFlags.withUnsafeBufferPointer { flags in
            var notHex: UInt8 = 0
            for k in 0..<8 { notHex |= flags[Int(bytes[k])] }
            for k in 9..<13 { notHex |= flags[Int(bytes[k])] }
            for k in 14..<18 { notHex |= flags[Int(bytes[k])] }
            for k in 19..<23 { notHex |= flags[Int(bytes[k])] }
            for k in 24..<36 { notHex |= flags[Int(bytes[k])] }
            return notHex == 0
        }
    }

    /// The client's `apns-id` when an answer may echo it: only a canonical one is (anything
    /// else is refused as BadMessageId, or replaced by a fresh id on a fault answer).
    public static func echoable(_ id: String?) -> String? { id.flatMap { isCanonical($0) ? $0 : nil } }
}

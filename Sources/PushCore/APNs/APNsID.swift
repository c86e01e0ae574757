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

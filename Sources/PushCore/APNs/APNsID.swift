import Foundation

/// `apns-id` values (docs/specs/apns.md "Request"): a canonical UUID, 8-4-4-4-12 hex digits.
/// The one rule for the sender's pre-flight, the validator and the gateway emulator.
public enum APNsID {
    /// A new id, lowercase as APNs writes them.
    public static func generate() -> String { UUID().uuidString.lowercased() }

    /// True for 8-4-4-4-12 hex digits. Apple writes ids in lowercase and pushlab sends them so;
    /// APNs accepts either case and echoes what it got, so both pass here.
    public static func isCanonical(_ id: String) -> Bool {
        var count = 0
        for b in id.utf8 {
            switch count {
            case 8, 13, 18, 23: if b != UInt8(ascii: "-") { return false }
            case 36...: return false
            default: if !DeviceToken.isHexDigit(b) { return false }
            }
            count += 1
        }
        return count == 36
    }

    /// The client's `apns-id` when an answer may echo it: only a canonical one is (anything
    /// else is refused as BadMessageId, or replaced by a fresh id on a fault answer).
    public static func echoable(_ id: String?) -> String? { id.flatMap { isCanonical($0) ? $0 : nil } }
}

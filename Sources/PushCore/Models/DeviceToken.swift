import Foundation

/// Which service a device token belongs to, judged by its shape (docs/specs/fcm.md "Token shapes").
public enum DeviceTokenKind: String, Sendable, Hashable, Codable {
    /// Hex, even length, at least 64 characters (32 bytes; Apple may issue longer tokens).
    case apns
    /// An FCM registration token: URL-safe, usually `<instance id>:<base64url>`.
    case fcm
    case invalid
}

/// A token problem worth telling the user before a send: what is wrong and how to fix it.
public struct DeviceTokenProblem: Sendable, Hashable, CustomStringConvertible {
    public enum Code: String, Sendable, Hashable, Codable {
        case empty
        /// An APNs token given where FCM needs a registration token (or the reverse).
        case apnsTokenSentToFCM = "apns-token-for-fcm"
        case fcmTokenSentToAPNs = "fcm-token-for-apns"
        /// Printed with `<…>`, spaces or a `0x` prefix (e.g. the old `description` of NSData).
        case decorated
        case oddLength = "odd-length"
        case tooShort = "too-short"
        case badCharacters = "bad-characters"
        case unrecognised
    }
    public var code: Code
    public var message: String
    public var fix: String
    public var description: String { "\(message) — fix: \(fix)" }
}

/// Device-token shape checks shared by the senders (pre-flight) and the validator.
public enum DeviceToken {
    /// Shortest APNs token: 32 bytes as hex.
    public static let apnsMinimumHexLength = 64
    /// FCM registration tokens are ~140–200 characters; anything below this is not one.
    public static let fcmMinimumLength = 100
    public static let fcmMaximumLength = 4096

    public static func classify(_ token: String) -> DeviceTokenKind {
        if isAPNsHex(token) { return .apns }
        if isFCMShape(token) { return .fcm }
        return .invalid
    }

    /// The problem with using `token` for `service`, or nil when its shape fits.
    public static func problem(_ token: String, for service: DeviceTokenKind) -> DeviceTokenProblem? {
        if token.isEmpty {
            return DeviceTokenProblem(code: .empty, message: "the device token is empty",
                                      fix: service == .fcm ? "pass the FCM registration token from the app (Messaging.messaging().token)"
                                                           : "pass the APNs device token the app received in didRegisterForRemoteNotificationsWithDeviceToken, as hex")
        }
        let kind = classify(token)
        switch (service, kind) {
        case (.apns, .apns), (.fcm, .fcm):
            return nil
        case (.fcm, .apns):
            return DeviceTokenProblem(code: .apnsTokenSentToFCM,
                message: "this is an APNs device token (\(token.count) hex characters); FCM needs the FCM registration token",
                fix: "register the token from Messaging.messaging().token (or the SDK's FCM token), not the raw APNs token; FCM answers an APNs token with INVALID_ARGUMENT and the device gets pruned")
        case (.apns, .fcm):
            return DeviceTokenProblem(code: .fcmTokenSentToAPNs,
                message: "this is an FCM registration token; APNs needs the hex APNs device token",
                fix: "send through FCM (pushlab send fcm), or use the APNs device token from didRegisterForRemoteNotificationsWithDeviceToken; APNs answers BadDeviceToken")
        default:
            return shapeProblem(token, for: service)
        }
    }

    /// `abcd…` shortened for logs: first 8 characters and an ellipsis (never the whole token).
    public static func redacted(_ token: String) -> String {
        token.count <= 8 ? token : String(token.prefix(8)) + "…"
    }

    static func isHexDigit(_ b: UInt8) -> Bool {
        (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x46) || (b >= 0x61 && b <= 0x66)
    }

    /// `classify(token) == .apns` without the FCM shape check behind it: an even number of hex
    /// digits, at least `apnsMinimumHexLength`.
    public static func isAPNsHex(_ token: String) -> Bool {
        let u = token.utf8
        guard u.count >= apnsMinimumHexLength, u.count % 2 == 0 else { return false }
        // The gateway asks this of every APNs request: over the contiguous bytes (a token
        // always is), one table load and an OR per byte, no branch per byte: the compare chain
        // of `isHexDigit` in `allSatisfy` was a third of the APNs header rules' cost. One
        // branch per 16 bytes: the FCM route asks it of every registration token (163 bytes,
        // its first colon at byte 11), which a whole-token scan read to the end, twice.
        return u.withContiguousStorageIfAvailable { bytes in
            hexDigitFlags.withUnsafeBufferPointer { flags in
                var notHex: UInt8 = 0
                var k = 0
                while k < bytes.count {
                    let end = min(k + 16, bytes.count)
                    while k < end {
                        notHex |= flags[Int(bytes[k])]
                        k += 1
                    }
                    if notHex != 0 { return false }
                }
                return true
            }
        } ?? u.allSatisfy(isHexDigit)
    }

    /// Per byte value: 0 for a hex digit (`isHexDigit`), 1 for anything else (also read by
    /// `APNsID.isCanonical(bytes:)`).
    static let hexDigitFlags: [UInt8] = (0..<256).map { isHexDigit(UInt8($0)) ? 0 : 1 }

    static func isURLSafe(_ b: UInt8) -> Bool {
        (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == UInt8(ascii: "-") || b == UInt8(ascii: "_")
    }

    /// Per byte value: 0 URL-safe (`isURLSafe`), 1 colon, 1 << 16 anything else: a token's sum
    /// counts its colons in the low 16 bits (at most 4096 bytes) and its other bytes above.
    private static let fcmByteClasses: [UInt32] = (0..<256).map { b in
        b == Int(UInt8(ascii: ":")) ? 1 : isURLSafe(UInt8(b)) ? 0 : 1 << 16
    }

    /// `<instance id>:<base64url>` (or the legacy colon-free `APA91b…` form), URL-safe, long enough.
    static func isFCMShape(_ token: String) -> Bool {
        let u = token.utf8
        guard u.count >= fcmMinimumLength, u.count <= fcmMaximumLength else { return false }
        // Counted over the contiguous bytes (a token always is): the FCM route asks this of
        // every message, and the UTF-8 view's iterator cost more than the rest of the check. One
        // table load and one add per byte, no branch: the compare chain of `isURLSafe` was 3%
        // of the route, and two sums (colons, invalid bytes) per byte were most of this check.
        func count(_ bytes: some Sequence<UInt8>) -> Int? {
            fcmByteClasses.withUnsafeBufferPointer { classes in
                var sum: UInt32 = 0
                for b in bytes { sum &+= classes[Int(b)] }
                return sum >> 16 == 0 ? Int(sum) : nil
            }
        }
        guard let colons = u.withContiguousStorageIfAvailable({ count($0) }) ?? count(u) else { return false }
        if colons == 1 { return u.first != UInt8(ascii: ":") && u.last != UInt8(ascii: ":") }
        return colons == 0 && token.hasPrefix("APA91b")
    }

    private static func shapeProblem(_ token: String, for service: DeviceTokenKind) -> DeviceTokenProblem {
        let stripped = token.filter { !" <>".contains($0) }
        let unprefixed = stripped.hasPrefix("0x") ? String(stripped.dropFirst(2)) : stripped
        if service == .apns {
            if unprefixed != token, isAPNsHex(unprefixed) {
                return DeviceTokenProblem(code: .decorated, message: "the APNs token contains spaces, '<>' or a 0x prefix",
                                          fix: "send only the hex digits: \(redacted(unprefixed))")
            }
            if token.utf8.allSatisfy(isHexDigit) {
                if token.utf8.count % 2 == 1 {
                    return DeviceTokenProblem(code: .oddLength, message: "the APNs token has an odd number of hex digits (\(token.count)); a digit is missing or extra",
                                              fix: "copy the whole token again; it is the device token's bytes as hex, two digits per byte")
                }
                return DeviceTokenProblem(code: .tooShort, message: "the APNs token is \(token.count) hex digits; APNs tokens are at least \(apnsMinimumHexLength)",
                                          fix: "copy the whole token again (32 or more bytes as hex)")
            }
            return DeviceTokenProblem(code: .badCharacters, message: "the APNs token contains characters other than hex digits",
                                      fix: "an APNs token is hex (0-9, a-f); convert the device token Data to hex, not base64")
        }
        if FirebaseInstallationID.isValid(token) {
            return DeviceTokenProblem(code: .unrecognised,
                                      message: "this is a Firebase Installation ID (22 characters), not an FCM registration token",
                                      fix: "send it as the fid target (message.fid, --fid); a registration token is ~140-200 characters")
        }
        if token.utf8.contains(where: { !isURLSafe($0) && $0 != UInt8(ascii: ":") }) {
            return DeviceTokenProblem(code: .badCharacters, message: "the FCM token contains characters outside A-Z a-z 0-9 - _ :",
                                      fix: "copy the registration token exactly; remove quotes, spaces or line breaks")
        }
        return DeviceTokenProblem(code: .unrecognised,
                                  message: "this does not look like an FCM registration token (\(token.count) characters; expected ~140-200, '<instance id>:<base64url>')",
                                  fix: "pass the token from Messaging.messaging().token / FirebaseMessaging.getToken()")
    }
}

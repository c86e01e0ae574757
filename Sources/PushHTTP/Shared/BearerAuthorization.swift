/// The `Bearer` credentials of an `Authorization` value — the one parser every route and
/// token cache uses (the gateway's APNs and FCM routes, the relay API, the console, the
/// Retainza ingest, the OAuth token caches).
///
/// The grammar (RFC 6750 §2.1 in the terms of RFC 9110 §11.4, which replaced RFC 7235 §2.1):
///
///     credentials = "Bearer" 1*SP b64token
///     b64token    = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="
///
/// The scheme name is case-insensitive (RFC 9110 §11.1), so `bearer` and `BEARER` count; the
/// token is case-sensitive and kept as sent. Spaces and tabs around the whole value are not
/// part of it (RFC 9110 §5.5). Anything else is not a Bearer credential: another scheme
/// (`Basic …`), no token (`Bearer`, `Bearer `), a tab instead of the space, or a token with
/// characters b64token does not allow (a space inside, `=` before its end, `,`, `;`, `"` …).
public enum BearerAuthorization {
    /// The token of a `Bearer` value, or nil when `value` is not one (see the type's grammar).
    public static func token(in value: String) -> Substring? {
        let bytes = value.utf8
        var i = bytes.startIndex
        var end = bytes.endIndex
        while i < end, isOWS(bytes[i]) { bytes.formIndex(after: &i) }
        while end > i, isOWS(bytes[bytes.index(before: end)]) { bytes.formIndex(before: &end) }
        for expected in scheme {
            guard i < end, bytes[i] | 0x20 == expected else { return nil }
            bytes.formIndex(after: &i)
        }
        guard i < end, bytes[i] == space else { return nil }
        while i < end, bytes[i] == space { bytes.formIndex(after: &i) }
        let start = i
        while i < end, isTokenCharacter(bytes[i]) { bytes.formIndex(after: &i) }
        guard i > start else { return nil }
        while i < end, bytes[i] == equals { bytes.formIndex(after: &i) }
        guard i == end else { return nil }
        return value[start..<end]
    }

    /// `bearer`, lowercase: a byte ORed with 0x20 matches a letter in either case (and no other
    /// byte can turn into one of these letters that way).
    private static let scheme: [UInt8] = Array("bearer".utf8)
    private static let space = UInt8(ascii: " ")
    private static let equals = UInt8(ascii: "=")

    private static func isOWS(_ b: UInt8) -> Bool { b == space || b == UInt8(ascii: "\t") }

    /// ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/".
    private static func isTokenCharacter(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "+"), UInt8(ascii: "/"):
            return true
        default:
            return false
        }
    }
}

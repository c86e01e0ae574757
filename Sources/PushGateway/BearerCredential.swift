/// The `Bearer` scheme of an `authorization` value (RFC 6750 §2.1; the scheme name is
/// case-insensitive, RFC 9110 §11.1): the APNs route reads provider tokens with it, the FCM
/// route access tokens.
enum BearerCredential {
    /// The text after `bearer ` (any case), possibly empty; nil when the value does not start so.
    static func token(in header: String) -> Substring? {
        let scheme = "bearer ".utf8
        guard header.utf8.count >= scheme.count,
              header.utf8.prefix(scheme.count).elementsEqual(scheme, by: { a, b in a == b || (a >= 65 && a <= 90 && a + 32 == b) })
        else { return nil }
        return header[header.utf8.index(header.startIndex, offsetBy: scheme.count)...]
    }
}

/// Redaction for anything that reaches a terminal or a log (COMMON standards: never print key
/// material, JWTs or access tokens; shorten device tokens).
public enum Redact {
    /// `"bearer eyJ…"` → `"bearer <redacted>"`, keeping the scheme's spelling; a value
    /// without a scheme becomes `"<redacted>"`.
    public static func bearer(_ authorization: String) -> String {
        guard let space = authorization.firstIndex(of: " ") else {
            return authorization.isEmpty ? "" : "<redacted>"
        }
        return authorization[..<space] + " <redacted>"
    }

    /// A device or registration token shortened to its first 8 characters and `…`.
    public static func token(_ token: String) -> String {
        token.count <= 8 ? token : token.prefix(8) + "…"
    }

    /// Header values as they may be shown: `authorization` redacted, everything else as is.
    public static func header(name: String, value: String) -> String {
        name.lowercased() == "authorization" ? bearer(value) : value
    }
}

/// How device tokens appear in logs and terminal output (never in full).
public enum TokenDisplay {
    public static func short(_ token: String) -> String {
        token.count > 8 ? String(token.prefix(8)) + "…" : token
    }
}

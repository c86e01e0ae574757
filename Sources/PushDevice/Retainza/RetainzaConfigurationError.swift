import PushCore

/// Why `Retainza.start(with:)` throws `.configuration` (docs/specs/retainza.md §2): the SDK
/// refuses to initialise rather than run with a key or base URL it must not use.
public enum RetainzaConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// An `sk_` key: those reach the campaign and send APIs and can be extracted from an IPA.
    case secretKey
    /// Not a `pk_` key at all.
    case notAPublicKey
    /// A base URL that does not end in `/v1`.
    case baseURLWithoutVersion(String)

    public var reason: String {
        switch self {
        case .secretKey: return "Init throws .configuration: publicKey is a secret (sk_) key"
        case .notAPublicKey: return "Init throws .configuration: publicKey does not start with pk_"
        case .baseURLWithoutVersion(let url): return "Init throws .configuration: baseURL \(url) does not end in /v1"
        }
    }

    public var fix: String {
        switch self {
        case .secretKey, .notAPublicKey:
            return "only pk_ keys belong in an app: pk_test_… for debug builds (Sandbox), pk_live_… for release builds (Production), set per build configuration"
        case .baseURLWithoutVersion:
            return "end the self-hosted base URL in /v1 (e.g. https://engage.example.com/v1)"
        }
    }

    public var description: String { "\(reason)\n  fix: \(fix)" }

    /// The SDK's start-up checks, in order.
    public static func check(publicKey: String, baseURL: String) -> RetainzaConfigurationError? {
        switch RetainzaContract.classify(key: publicKey) {
        case .secret: return .secretKey
        case .notAKey: return .notAPublicKey
        case .test, .live, .otherPublic: break
        }
        var url = baseURL
        while url.hasSuffix("/") { url.removeLast() }
        if !url.hasSuffix(RetainzaContract.requiredBaseURLSuffix) { return .baseURLWithoutVersion(baseURL) }
        return nil
    }
}

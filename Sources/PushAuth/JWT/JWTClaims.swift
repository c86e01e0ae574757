import Foundation

/// The registered claims pushlab's protocols use. `aud` may hold several audiences
/// (RFC 7519 §4.1.3); one audience is encoded as a plain string.
public struct JWTClaims: Sendable, Hashable {
    public var iss: String?
    public var sub: String?
    public var aud: [String]
    public var scope: String?
    /// Seconds since the epoch.
    public var iat: Int64?
    public var exp: Int64?

    public init(iss: String? = nil, sub: String? = nil, aud: [String] = [], scope: String? = nil,
                iat: Int64? = nil, exp: Int64? = nil) {
        self.iss = iss
        self.sub = sub
        self.aud = aud
        self.scope = scope
        self.iat = iat
        self.exp = exp
    }

    /// The single audience, when there is exactly one.
    public var audience: String? { aud.count == 1 ? aud[0] : nil }
}

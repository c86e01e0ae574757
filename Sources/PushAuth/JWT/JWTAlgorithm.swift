import Foundation

/// The two JWS algorithms pushlab speaks: ES256 (APNs provider tokens, RFC 7518 §3.4) and
/// RS256 (Google OAuth assertions, RFC 7518 §3.3).
public enum JWTAlgorithm: String, Sendable, Hashable {
    case es256 = "ES256"
    case rs256 = "RS256"
}

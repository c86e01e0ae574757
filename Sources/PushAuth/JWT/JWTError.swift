import Foundation

/// Why a JWT could not be signed, parsed or verified. Never carries the token or key bytes.
public enum JWTError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Segment: String, Sendable { case header, claims, signature }

    /// Not three dot-separated segments, an empty segment, or a claim of the wrong type.
    case malformed(String)
    case badBase64(Segment)
    case badJSON(Segment)
    case unsupportedAlgorithm(String)
    /// The header names another algorithm than the one the verifier requires.
    case wrongAlgorithm(expected: JWTAlgorithm, found: String)
    /// The key cannot be used with the algorithm (an RSA key for ES256, …).
    case keyMismatch(algorithm: JWTAlgorithm, key: KeyAlgorithm)
    case badSignature
    case signingFailed

    public var description: String {
        switch self {
        case .malformed(let why): return "malformed JWT: \(why)"
        case .badBase64(let segment): return "malformed JWT: the \(segment.rawValue) is not valid base64url"
        case .badJSON(let segment): return "malformed JWT: the \(segment.rawValue) is not a JSON object of the expected shape"
        case .unsupportedAlgorithm(let alg): return "unsupported JWT algorithm '\(alg)' (expected ES256 or RS256)"
        case .wrongAlgorithm(let expected, let found): return "JWT algorithm is '\(found)', expected \(expected.rawValue)"
        case .keyMismatch(let alg, let key): return "a \(key) key cannot be used with \(alg.rawValue)"
        case .badSignature: return "JWT signature does not verify with the given public key"
        case .signingFailed: return "OpenSSL could not sign the JWT"
        }
    }
}

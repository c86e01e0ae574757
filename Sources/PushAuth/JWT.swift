import Foundation

/// The two JWS algorithms pushlab speaks: ES256 (APNs provider tokens, RFC 7518 §3.4) and
/// RS256 (Google OAuth assertions, RFC 7518 §3.3).
public enum JWTAlgorithm: String, Sendable, Hashable {
    case es256 = "ES256"
    case rs256 = "RS256"
}

/// A JOSE header. Only the fields pushlab's protocols use.
public struct JWTHeader: Sendable, Hashable {
    public var alg: String
    public var kid: String?
    public var typ: String?

    public init(alg: JWTAlgorithm, kid: String? = nil, typ: String? = nil) {
        self.init(alg: alg.rawValue, kid: kid, typ: typ)
    }

    public init(alg: String, kid: String? = nil, typ: String? = nil) {
        self.alg = alg
        self.kid = kid
        self.typ = typ
    }

    public var algorithm: JWTAlgorithm? { JWTAlgorithm(rawValue: alg) }
}

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

/// A compact JWS split into its parts. `parse` checks shape only; `verify` checks the signature.
public struct JWT: Sendable {
    public let header: JWTHeader
    public let claims: JWTClaims
    /// `base64url(header) "." base64url(claims)`: the bytes the signature covers.
    public let signingInput: [UInt8]
    /// The signature as carried in the token (ES256: raw r‖s, 64 bytes).
    public let signature: [UInt8]

    /// Signs `claims` under `header` with `key` and returns the compact serialization.
    public static func sign(header: JWTHeader, claims: JWTClaims, key: PrivateKey) throws(JWTError) -> String {
        guard let alg = header.algorithm else { throw .unsupportedAlgorithm(header.alg) }
        try JWT.check(key.algorithm, for: alg)
        var input = Base64URL.encode(JWTJSON.encode(header))
        input += "."
        input += Base64URL.encode(JWTJSON.encode(claims))
        guard let der = key.key.sign(Array(input.utf8)) else { throw .signingFailed }
        let signature: [UInt8]
        switch alg {
        case .rs256: signature = der
        case .es256: guard let raw = ECDSASignature.rawFromDER(der) else { throw .signingFailed }; signature = raw
        }
        return input + "." + Base64URL.encode(signature)
    }

    /// Splits and decodes a compact JWS. Fast and allocation-light: the gateway calls it per
    /// request (after its own per-connection cache).
    public static func parse<Token: StringProtocol>(_ token: Token) throws(JWTError) -> JWT {
        let utf8 = Array(token.utf8)
        guard let firstDot = utf8.firstIndex(of: UInt8(ascii: ".")),
              let secondDot = utf8[(firstDot + 1)...].firstIndex(of: UInt8(ascii: ".")),
              !utf8[(secondDot + 1)...].contains(UInt8(ascii: "."))
        else {
            let segments = utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false).count
            throw .malformed("expected 3 dot-separated segments, found \(segments)")
        }
        let headerPart = utf8[..<firstDot], claimsPart = utf8[(firstDot + 1)..<secondDot], signaturePart = utf8[(secondDot + 1)...]
        if headerPart.isEmpty || claimsPart.isEmpty || signaturePart.isEmpty {
            throw .malformed("a segment is empty")
        }
        guard let headerJSON = Base64Codec.decode(Array(headerPart), url: true) else { throw .badBase64(.header) }
        guard let claimsJSON = Base64Codec.decode(Array(claimsPart), url: true) else { throw .badBase64(.claims) }
        guard let signature = Base64Codec.decode(Array(signaturePart), url: true) else { throw .badBase64(.signature) }
        let header = try JWTJSON.decodeHeader(headerJSON)
        let claims = try JWTJSON.decodeClaims(claimsJSON)
        return JWT(header: header, claims: claims, signingInput: Array(utf8[..<secondDot]), signature: signature)
    }

    /// Checks the signature with `key`. When `algorithm` is given the header must name it
    /// (never trust the token to pick its own algorithm: RFC 8725 §3.1).
    public func verify(with key: PublicKey, algorithm expected: JWTAlgorithm? = nil) throws(JWTError) {
        guard let alg = header.algorithm else { throw .unsupportedAlgorithm(header.alg) }
        if let expected, expected != alg { throw .wrongAlgorithm(expected: expected, found: header.alg) }
        try JWT.check(key.algorithm, for: alg)
        let ok: Bool
        switch alg {
        case .rs256:
            ok = signingInput.withUnsafeBufferPointer { key.key.verify(signature, over: $0) }
        case .es256:
            guard signature.count == 64 else { throw .badSignature }
            guard let der = ECDSASignature.derFromRaw(signature) else { throw .badSignature }
            ok = signingInput.withUnsafeBufferPointer { key.key.verify(der, over: $0) }
        }
        if !ok { throw .badSignature }
    }

    /// Parses and verifies in one step.
    public static func verify<Token: StringProtocol>(_ token: Token, with key: PublicKey,
                                                     algorithm: JWTAlgorithm) throws(JWTError) -> JWT {
        let jwt = try parse(token)
        try jwt.verify(with: key, algorithm: algorithm)
        return jwt
    }

    static func check(_ key: KeyAlgorithm, for alg: JWTAlgorithm) throws(JWTError) {
        switch (alg, key) {
        case (.es256, .p256), (.rs256, .rsa): return
        default: throw .keyMismatch(algorithm: alg, key: key)
        }
    }
}

import Foundation

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

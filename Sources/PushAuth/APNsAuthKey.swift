import Foundation

/// An APNs token-auth signing key: the `.p8` private key plus the key id and team id that go
/// into every provider token (docs/specs/apns.md, "Provider token").
public struct APNsAuthKey: Sendable, CustomStringConvertible {
    public let keyID: String
    public let teamID: String
    public let privateKey: PrivateKey

    /// Checks the ids and that the key is EC P-256.
    public init(privateKey: PrivateKey, keyID: String, teamID: String, source: String = "key") throws(KeyLoadError) {
        try APNsAuthKey.requireP256(privateKey.algorithm, source: source)
        guard APNsAuthKey.isAppleID(keyID) else { throw .invalidKeyID(keyID) }
        let team = teamID.trimmingCharacters(in: .whitespaces)
        if team.isEmpty { throw .missingTeamID }
        guard APNsAuthKey.isAppleID(team) else { throw .invalidTeamID(team) }
        self.privateKey = privateKey
        self.keyID = keyID
        self.teamID = team
    }

    /// Loads `AuthKey_<KEYID>.p8`. Without `keyID`, the id is taken from that file name.
    public static func load(path: String, keyID: String? = nil, teamID: String) throws(KeyLoadError) -> APNsAuthKey {
        let id: String
        if let keyID, !keyID.isEmpty {
            id = keyID
        } else if let inferred = APNsAuthKey.keyID(fromFileName: path) {
            id = inferred
        } else {
            throw .missingKeyID(source: path)
        }
        if teamID.trimmingCharacters(in: .whitespaces).isEmpty { throw .missingTeamID }
        let key = try PrivateKey(contentsOfFile: path)
        return try APNsAuthKey(privateKey: key, keyID: id, teamID: teamID, source: path)
    }

    /// `AuthKey_ABC123DEFG.p8` → `ABC123DEFG` (Apple's download name); nil for any other name.
    public static func keyID(fromFileName path: String) -> String? {
        let name = (path as NSString).lastPathComponent
        guard name.hasPrefix("AuthKey_"), name.hasSuffix(".p8") else { return nil }
        let id = String(name.dropFirst("AuthKey_".count).dropLast(".p8".count))
        return isAppleID(id) ? id : nil
    }

    /// The provider JWT for `issuedAt`: header {alg ES256, kid}, claims {iss team, iat}.
    public func providerToken(issuedAt: Date) throws(JWTError) -> String {
        try JWT.sign(header: JWTHeader(alg: .es256, kid: keyID),
                     claims: JWTClaims(iss: teamID, iat: Int64(issuedAt.timeIntervalSince1970.rounded(.down))),
                     key: privateKey)
    }

    public var description: String { "APNsAuthKey(keyID: \(keyID), teamID: \(teamID))" }

    /// Apple key ids and team ids are 10 characters, letters and digits.
    static func isAppleID(_ s: String) -> Bool {
        s.utf8.count == 10 && s.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 >= 65 && $0 <= 90) || ($0 >= 97 && $0 <= 122) }
    }

    static func requireP256(_ algorithm: KeyAlgorithm, source: String) throws(KeyLoadError) {
        switch algorithm {
        case .p256: return
        case .rsa: throw .rsaKeyInsteadOfP256(source: source)
        case .ec(let curve): throw .wrongCurve(source: source, curve: KeyAlgorithm.friendlyCurveName(curve))
        case .other: throw .unsupportedKeyType(source: source)
        }
    }
}

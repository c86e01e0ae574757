import Foundation
import PushAuth
import PushCore
import Synchronization

/// The APNs keys and Google service accounts the gateway trusts, by id. Verifying keys are
/// loaded once (OpenSSL objects reused for every request: the gateway verifies per token).
public final class GatewayKeys: APNsKeyRing, Sendable {
    // Written before the gateway starts (`trust…`), read-only afterwards; the locks make late
    // additions from tests safe too.
    private let apns = Mutex<[String: (key: TrustedAPNsKey, publicKey: PublicKey)]>([:])
    private let accounts = Mutex<[String: TrustedServiceAccount]>([:])

    public init() {}

    /// `KEYID:TEAMID:public.pem` (the `--apns-key` flag); an optional `:sandbox` or
    /// `:production` suffix restricts the key to one environment.
    public func trustAPNsKey(spec: String) throws {
        let parts = spec.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3 || parts.count == 4 else {
            throw GatewayConfigError.invalidKey(spec: spec, why: "expected KEYID:TEAMID:public.pem")
        }
        var restriction: TrustedAPNsKey.Restriction?
        if parts.count == 4 {
            guard let r = TrustedAPNsKey.Restriction(rawValue: parts[3]) else {
                throw GatewayConfigError.invalidKey(spec: spec, why: "the environment must be 'sandbox' or 'production', got '\(parts[3])'")
            }
            restriction = r
        }
        let publicKey: PublicKey
        do { publicKey = try PublicKey(contentsOfFile: parts[2]) } catch {
            throw GatewayConfigError.invalidKey(spec: spec, why: "\(error)")
        }
        trustAPNsKey(TrustedAPNsKey(keyID: parts[0], teamID: parts[1], restriction: restriction), publicKey: publicKey)
    }

    public func trustAPNsKey(_ key: TrustedAPNsKey, publicKey: PublicKey) {
        apns.withLock { $0[key.keyID] = (key, publicKey) }
    }

    /// Trusts a service account's public half (from its JSON file or a PEM).
    public func trustServiceAccount(_ account: TrustedServiceAccount) {
        accounts.withLock { $0[account.clientEmail] = account }
    }

    public func trustServiceAccount(path: String) throws {
        let sa = try ServiceAccount.load(path: path)
        trustServiceAccount(TrustedServiceAccount(clientEmail: sa.clientEmail, projectID: sa.projectID,
                                                  keyID: sa.privateKeyID, publicKey: sa.privateKey.publicKey))
    }

    /// The dev key and dev service account in certs/ (what `pushlab serve` trusts by default).
    public static func developmentDefaults(certsDirectory: String) throws -> GatewayKeys {
        let keys = GatewayKeys()
        let apnsPublic = try PublicKey(contentsOfFile: certsDirectory + "/AuthKey_PLDEVKEY01.pub.pem")
        keys.trustAPNsKey(TrustedAPNsKey(keyID: "PLDEVKEY01", teamID: "PLDEVTEAM1"), publicKey: apnsPublic)
        try keys.trustServiceAccount(path: certsDirectory + "/fcm-service-account.json")
        return keys
    }

    public var apnsKeys: [TrustedAPNsKey] { apns.withLock { $0.values.map(\.key).sorted { $0.keyID < $1.keyID } } }

    func key(id: String) -> TrustedAPNsKey? { apns.withLock { $0[id]?.key } }

    func serviceAccount(email: String) -> TrustedServiceAccount? { accounts.withLock { $0[email] } }

    func verify(_ token: String) -> Result<VerifiedProviderToken, ProviderTokenProblem> {
        let jwt: JWT
        do { jwt = try JWT.parse(token) } catch { return .failure(.malformed) }
        guard let kid = jwt.header.kid, let iss = jwt.claims.iss, let iat = jwt.claims.iat else { return .failure(.malformed) }
        guard let entry = apns.withLock({ $0[kid] }) else { return .failure(.unknownKey) }
        do { try jwt.verify(with: entry.publicKey, algorithm: .es256) } catch { return .failure(.badSignature) }
        return .success(VerifiedProviderToken(keyID: kid, teamID: iss, issuedAt: Date(timeIntervalSince1970: TimeInterval(iat))))
    }
}

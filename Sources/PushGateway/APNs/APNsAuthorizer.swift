import Foundation
import PushAuth
import PushCore
import PushHTTP
import Synchronization

/// The authorization checks of an APNs request, in order; each maps to one reason.
struct APNsAuthorizer: Sendable {
    let keys: any APNsKeyRing
    let environment: TrustedAPNsKey.Restriction
    /// Set for `ProviderTokenUpdateScope.team`: one ledger shared by every connection.
    var teamTokens: TeamProviderTokens? = nil
    /// The APNs host asks for client certificates: a request without a provider token is
    /// authorized by the connection's certificate.
    var acceptsCertificates = false
    /// docs/specs/apns.md: a token older than an hour is expired.
    static let maxTokenAge: TimeInterval = 3600
    /// docs/specs/apns.md: refresh no more often than every 20 minutes.
    static let minRefreshInterval: TimeInterval = 20 * 60
    /// Clock skew tolerated for `iat` in the future.
    static let futureSkew: TimeInterval = 60

    static let storageKey = "apns.auth"

    /// What an accepted token tells the route.
    struct Authorized {
        var teamID: String
        /// The connection's stream limit was raised already (so the route need not look again).
        var streamLimitRaised: Bool
        /// Certificate authentication: the topics the certificate may push to (empty: any).
        var certificateTopics: [String]? = nil
    }

    /// Checks the `authorization` header against the connection's state and, when the token
    /// is acceptable, records it on the connection.
    func authorize(header: String?, connection: ConnectionContext, now: Date) -> Result<Authorized, APNsRejection> {
        guard let header, !header.isEmpty else {
            // A provider token wins over a certificate when a request carries both (what Apple
            // does then is unverified: docs/specs/apns.md "Certificate authentication").
            if acceptsCertificates, let peer = connection.peerCertificate { return authorize(certificate: peer, now: now) }
            return .failure(APNsRejection(.missingProviderToken))
        }
        return connection.storage.update(Self.storageKey, default: APNsConnectionAuth()) { state in
            // The same header as the last accepted one: its token was verified already; only age can change.
            if let last = state.header, last == header, let iat = state.tokenIssuedAt, let team = state.teamID {
                if now.timeIntervalSince(iat) > Self.maxTokenAge { return .failure(APNsRejection(.expiredProviderToken)) }
                return .success(Authorized(teamID: team, streamLimitRaised: state.authenticated))
            }
            guard let jwt = BearerAuthorization.token(in: header) else { return .failure(APNsRejection(.invalidProviderToken)) }
            return authorize(jwt: jwt, state: &state, now: now).map { team in
                state.header = header
                return Authorized(teamID: team, streamLimitRaised: state.authenticated)
            }
        }
    }

    /// A TLS client certificate (docs/specs/apns.md "Certificate authentication"): it must chain
    /// to the trusted CA and be within its validity (else 403 BadCertificate), and carry the
    /// environment this gateway plays (else 403 BadCertificateEnvironment). Its topics are
    /// checked against apns-topic by the route (400 TopicDisallowed).
    private func authorize(certificate peer: PeerCertificate, now: Date) -> Result<Authorized, APNsRejection> {
        guard peer.verified, let facts = try? APNsCertificateFacts(der: peer.der), facts.isValid(at: now) else {
            return .failure(APNsRejection(.badCertificate))
        }
        let wanted: APNsEnvironment = environment == .productionOnly ? .production : .sandbox
        if !facts.environments.isEmpty, !facts.environments.contains(wanted) {
            return .failure(APNsRejection(.badCertificateEnvironment))
        }
        return .success(Authorized(teamID: facts.subject, streamLimitRaised: false, certificateTopics: facts.topics))
    }

    private func authorize(jwt: Substring, state: inout APNsConnectionAuth, now: Date) -> Result<String, APNsRejection> {
        let invalid = APNsRejection(.invalidProviderToken)
        // The same token as before: its signature was verified already; only age can change.
        if let token = state.token, jwt == token[...], let iat = state.tokenIssuedAt, let team = state.teamID {
            if now.timeIntervalSince(iat) > Self.maxTokenAge { return .failure(APNsRejection(.expiredProviderToken)) }
            return .success(team)
        }
        let verified: VerifiedProviderToken
        let jwt = String(jwt)
        switch keys.verify(jwt) {
        case .success(let v): verified = v
        case .failure: return .failure(invalid)
        }
        guard let key = keys.key(id: verified.keyID) else { return .failure(invalid) }
        if let first = state.keyID, first != verified.keyID {
            return .failure(APNsRejection(.unrelatedKeyIdInToken))
        }
        if let restriction = key.restriction, restriction != environment {
            return .failure(APNsRejection(.badEnvironmentKeyIdInToken))
        }
        guard verified.teamID == key.teamID else { return .failure(invalid) }
        if let team = state.teamID, team != verified.teamID { return .failure(invalid) }
        if verified.issuedAt.timeIntervalSince(now) > Self.futureSkew { return .failure(invalid) }
        if now.timeIntervalSince(verified.issuedAt) > Self.maxTokenAge {
            return .failure(APNsRejection(.expiredProviderToken))
        }
        if state.token != nil, let changed = state.tokenChangedAt, now.timeIntervalSince(changed) < Self.minRefreshInterval {
            return .failure(APNsRejection(.tooManyProviderTokenUpdates))
        }
        if let teamTokens, !teamTokens.admit(team: verified.teamID, token: jwt, now: now, minimumInterval: Self.minRefreshInterval) {
            return .failure(APNsRejection(.tooManyProviderTokenUpdates))
        }
        state.keyID = verified.keyID
        state.teamID = verified.teamID
        state.token = jwt
        state.tokenIssuedAt = verified.issuedAt
        state.tokenChangedAt = now
        return .success(verified.teamID)
    }
}

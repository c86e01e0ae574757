import PushCore

/// One app the relay sends for.
public struct RelayApp: Sendable, Hashable {
    /// Its APNs pushes go to the built-in emulator with a provider certificate, so the emulator
    /// must ask for TLS client certificates (it trusts the dev CA, `certs/ca.pem`).
    public var authenticatesWithCertificateAtEmulator: Bool {
        guard let apns, apns.target == .emulator, apns.url == nil, apns.environmentURLs.isEmpty,
              case .certificate = apns.authentication else { return false }
        return true
    }

    public var name: String
    public var apns: APNs?
    public var fcm: FCM?
    /// Most sends per minute for this app (FCM's default project quota: 600,000/min).
    public var ratePerMinute: Int
    public var webhook: Webhook?

    public struct APNs: Sendable, Hashable {
        /// How the app authenticates to APNs: a `.p8` key or a provider certificate.
        public var authentication: Authentication
        /// Default `apns-topic` when a push names none (a `.p8` key needs one).
        public var bundleID: String
        public var environment: APNsEnvironment
        /// `apple` or `emulator`.
        public var target: RelayTarget
        /// Another APNs-speaking host (e.g. `pushlab serve`), instead of the target's.
        public var url: String?
        /// CA bundle to trust for `url` or the emulator.
        public var caFile: String?
        /// A host per environment (`"url": {"sandbox": …, "production": …}`); one not named here
        /// falls back to `url`, then to the target's own host for that environment.
        public var environmentURLs: [APNsEnvironment: String] = [:]
    }

    /// APNs's two ways to authenticate (docs/specs/apns.md "Certificate authentication").
    public enum Authentication: Sendable, Hashable {
        /// Provider tokens (JWTs) signed with a `.p8` key (`key`, `key_id`, `team_id`).
        case token(keyPath: String, keyID: String, teamID: String)
        /// A provider certificate presented in the TLS handshake (`certificate` …); requests
        /// then carry no `authorization` header.
        case certificate(Certificate)
    }

    /// `apns.certificate`: a `.p12` (with its password from a file or an environment variable)
    /// or a PEM certificate with its PEM key.
    public struct Certificate: Sendable, Hashable {
        /// The `.p12`/`.pfx` or PEM certificate file.
        public var path: String
        /// `certificate_key`: the PEM key of a PEM certificate (nil: in the certificate file).
        public var keyPath: String?
        /// `certificate_password_file`: the file whose first line is the `.p12` password.
        public var passwordFile: String?
        /// `certificate_password_env`: the variable holding the `.p12` password.
        public var passwordVariable: String?
        /// Read when neither `passwordFile` nor `passwordVariable` is given (as `send apns --cert`).
        public static let defaultPasswordVariable = "PUSHLAB_CERT_PASSWORD"
    }

    public struct FCM: Sendable, Hashable {
        public var serviceAccountPath: String
        /// From the service account when nil.
        public var projectID: String?
        /// `google` or `emulator`.
        public var target: RelayTarget
        /// Another FCM-speaking host, instead of the target's.
        public var url: String?
        /// OAuth token endpoint for `url` (the service account's `token_uri` otherwise).
        public var tokenURL: String?
        public var caFile: String?
        /// The Firebase project's send budget, shared by every app (and, on Redis, every node)
        /// sending to that project; nil: FCM's default quota.
        public var projectRatePerMinute: Int?
        /// FCM's default quota: 600,000 messages a minute per project (docs/specs/fcm.md).
        public static let defaultProjectRatePerMinute = 600_000
    }

    public struct Webhook: Sendable, Hashable {
        public var url: String
        /// File holding the HMAC-SHA256 secret (its first line).
        public var secretFile: String
        public var caFile: String?
    }
}

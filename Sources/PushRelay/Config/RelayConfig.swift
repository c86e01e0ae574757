import Foundation

/// `relay.json`: what `pushlab relay` serves (docs/relay.md "Configuration"). Paths inside
/// are relative to the file's directory. Credentials are named by path only; the relay never
/// serves or prints their contents.
public struct RelayConfig: Sendable {
    public var listen: Listen
    public var queue: Queue
    public var limits: Limits
    public var workers: Workers
    public var gorush: Gorush
    public var metrics = Metrics()
    /// Apps by name, in file order.
    public var apps: [RelayApp]
    /// The file the configuration came from (errors and the config read-back name it).
    public var source: String

    public func app(named name: String) -> RelayApp? { apps.first { $0.name == name } }

    public struct Listen: Sendable, Hashable {
        /// Loopback unless the operator means otherwise.
        public var host = "127.0.0.1"
        /// Cleartext port (h2c prior knowledge + HTTP/1.1); nil: none. 0 picks a free one.
        public var port: Int? = 8088
        /// TLS port (h2 + HTTP/1.1); needs `certificate` and `private_key`.
        public var tlsPort: Int?
        public var certificate: String?
        public var privateKey: String?
        public init() {}
    }

    public struct Queue: Sendable, Hashable {
        /// Most unfinished targets held; beyond it new pushes get 503 + Retry-After.
        public var capacity = 2_000_000
        /// fsync every commit (durable against power loss, not only against a crash).
        public var fsync = true
        public init() {}
    }

    public struct Limits: Sendable, Hashable {
        /// Largest request body accepted (413 beyond).
        public var maxBodyBytes = 4 << 20
        /// Most targets in one native push or one gorush request.
        public var maxTargets = 10_000
        /// gorush's `core.max_notification` (docs/specs/relay.md §2).
        public var maxNotifications = 100
        public init() {}
    }

    public struct Workers: Sendable, Hashable {
        /// Sends in flight at once, over all apps.
        public var concurrency = 64
        /// Attempts per target before its last error becomes final (inline retries included).
        public var maxAttempts = 5
        /// How long a claimed target stays with its worker before another may take it.
        public var leaseSeconds = 120
        public init() {}
    }

    public struct Metrics: Sendable, Hashable {
        /// `/metrics` answers only an admin key (`Authorization: Bearer <key>`, what Prometheus
        /// sends with `authorization: {credentials: …}` or `bearer_token`); 401/403 otherwise.
        /// The counters name apps and reasons, so they are not public by default; `false` opens
        /// them (a scraper on a private network that cannot send a key).
        public var requireAdminKey = true
        public init() {}
    }

    public struct Gorush: Sendable, Hashable {
        /// Accept `/gorush/{app}/…` without an API key — only when listening on loopback.
        public var unauthenticated = false
        public init() {}
    }
}

/// Where an app's pushes go.
public enum RelayTarget: String, Sendable, Hashable, CaseIterable {
    /// Apple's APNs hosts (sandbox or production per the app's environment).
    case apple
    /// Google's FCM HTTP v1 host.
    case google
    /// pushlab's gateway emulator, started inside the relay.
    case emulator
}

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

import PushHTTP

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
        /// Sync to disk: a commit that queues pushes before it returns, results within a second (durable against power loss, not only against a crash).
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
        /// The HTTP/2 client APNs sends go through (`pushlab send apns --transport`): nghttp2's,
        /// or libcurl's; a client certificate or a proxy variable makes it libcurl either way.
        public var transport = HTTPTransportKind.nghttp2
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

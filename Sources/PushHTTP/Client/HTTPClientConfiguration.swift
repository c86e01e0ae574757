/// How an `HTTPClient` connects. Every field has a default suited to pushing to APNs/FCM or
/// to pushlab's own emulator: one TLS connection per host, many HTTP/2 streams on it.
public struct HTTPClientConfiguration: Sendable {
    /// Which HTTP version to speak.
    public enum ProtocolMode: String, Sendable, CaseIterable {
        /// `https://`: TLS with ALPN offering h2, falling back to HTTP/1.1 when the server does
        /// not pick h2. `http://`: HTTP/1.1 (no cleartext upgrade dance).
        case http2
        /// HTTP/2 without TLS or upgrade (h2c "prior knowledge", RFC 9113 §3.3) on `http://`;
        /// `https://` URLs still use TLS with ALPN h2.
        case h2cPriorKnowledge
        /// HTTP/1.1 only, over TLS or cleartext. No multiplexing: one request per connection
        /// at a time, so raise `maxConnectionsPerHost` for concurrency.
        case http1
    }

    /// Default `.http2`.
    public var protocolMode: ProtocolMode
    /// A PEM file of CA certificates to trust instead of the system store (e.g. `certs/ca.pem`
    /// for pushlab's dev servers). Default nil: the system store.
    public var caFile: String?
    /// Verify the server's certificate chain and host name. Default true; turn off only for
    /// throwaway local experiments.
    public var verifyPeer: Bool
    /// The most HTTP/2 streams this client opens at once on one connection
    /// (CURLMOPT_MAX_CONCURRENT_STREAMS). libcurl also obeys the server's
    /// SETTINGS_MAX_CONCURRENT_STREAMS; requests beyond the smaller limit wait for a free
    /// stream. Default 1000.
    public var maxConcurrentStreams: Int
    /// Connections per host (CURLMOPT_MAX_HOST_CONNECTIONS). With HTTP/2 the client waits for
    /// a stream on an existing connection (CURLOPT_PIPEWAIT) rather than opening another.
    /// Default 1, what APNs asks of providers: reuse one connection.
    public var maxConnectionsPerHost: Int
    /// TCP + TLS connect deadline. Default 10 s.
    public var connectTimeout: Duration
    /// Whole-exchange deadline when a request sets none, including time spent waiting for a
    /// stream and following redirects. Default 60 s.
    public var requestTimeout: Duration
    /// `User-Agent` sent when a request sets none. Default `pushlab/0.1`.
    public var userAgent: String
    /// A TLS client certificate to present (APNs certificate authentication). Default nil.
    public var clientCertificate: ClientCertificate? = nil

    /// A client certificate and its key, as files the TLS library reads.
    public struct ClientCertificate: Sendable, Hashable {
        public enum Format: Sendable, Hashable {
            /// PEM certificate file and PEM key file (may be the same file).
            case pem(keyFile: String)
            /// PKCS#12 (.p12) holding both, opened with the password.
            case pkcs12(password: String)
        }
        public var file: String
        public var format: Format
        public init(file: String, format: Format) {
            self.file = file
            self.format = format
        }
    }

    public init(protocolMode: ProtocolMode = .http2, caFile: String? = nil, verifyPeer: Bool = true,
                maxConcurrentStreams: Int = 1000, maxConnectionsPerHost: Int = 1,
                connectTimeout: Duration = .seconds(10), requestTimeout: Duration = .seconds(60),
                userAgent: String = "pushlab/0.1") {
        self.protocolMode = protocolMode
        self.caFile = caFile
        self.verifyPeer = verifyPeer
        self.maxConcurrentStreams = maxConcurrentStreams
        self.maxConnectionsPerHost = maxConnectionsPerHost
        self.connectTimeout = connectTimeout
        self.requestTimeout = requestTimeout
        self.userAgent = userAgent
    }
}

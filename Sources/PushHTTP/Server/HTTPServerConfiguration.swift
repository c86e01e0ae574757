/// How an `HTTPServer` listens and what it accepts. Every field has a documented default;
/// `HTTPServerConfiguration()` gives a cleartext-only server on an ephemeral loopback port.
public struct HTTPServerConfiguration: Sendable {
    /// Address to bind: an IPv4/IPv6 literal or a host name. Default "127.0.0.1".
    public var host: String
    /// TLS listener (ALPN `h2`, falling back to `http/1.1`). nil: no TLS listener; 0: any free
    /// port (read the bound one from `HTTPServer.tlsPort`). Default nil.
    public var tlsPort: Int?
    /// Cleartext listener: h2c with prior knowledge, or HTTP/1.1 when the first bytes are not the
    /// HTTP/2 connection preface. nil: none; 0: any free port. Default 0.
    public var cleartextPort: Int?
    /// PEM certificate chain and private key; required when `tlsPort` is set.
    public var certificateFile: String?
    public var privateKeyFile: String?
    /// SETTINGS advertised to every new HTTP/2 connection. Default: MAX_CONCURRENT_STREAMS 100,
    /// the rest at protocol defaults (SETTINGS_MAX_HEADER_LIST_SIZE from `maxHeaderListBytes`
    /// when nil).
    public var settings: HTTP2Settings
    /// Largest request body accepted; a larger one is answered 413 (HTTP/2: then RST_STREAM
    /// NO_ERROR, RFC 9113 §8.1; HTTP/1.1: then the connection closes). Default 8 MiB.
    public var maxRequestBodyBytes: Int
    /// Largest request header block (names + values + 32 bytes per field, as RFC 9113 §6.5.2
    /// counts it); a larger one is answered 431. Default 16 KiB.
    public var maxHeaderListBytes: Int
    /// A connection with no open stream for this long is closed: HTTP/2 gets GOAWAY(NO_ERROR)
    /// carrying `idleGoAwayDebugData` first. nil: never. Default nil.
    public var idleTimeout: Duration?
    /// Debug data of the idle GOAWAY. Default `{"reason":"IdleTimeout"}` (APNs closes idle
    /// connections with such a GOAWAY).
    public var idleGoAwayDebugData: [UInt8]
    /// How long `stop()` lets in-flight requests finish before closing their connections.
    /// Default 10 s.
    public var shutdownGracePeriod: Duration
    /// A new connection must finish its TLS handshake and then send its first complete HTTP/1.1
    /// request head, or its first HTTP/2 frame after the preface, within this time; otherwise it
    /// is closed without an answer. Stops half-open connections and slowloris (headers a byte at
    /// a time) from holding sockets forever. nil: never. Default 10 s.
    public var handshakeTimeout: Duration?
    /// Event-loop threads. The first accepts every connection and hands them out round-robin;
    /// each connection then lives on one loop, so handlers may run on several threads at once.
    /// Default 1 (the whole server on one thread).
    public var eventLoops: Int
    /// Ask TLS clients for a certificate (optional: clients without one still connect) and
    /// verify a presented one against the CA certificates in this PEM file; handlers read the
    /// verdict from `ConnectionContext.peerCertificate`. The handshake never fails on a bad
    /// certificate, so the application answers in its own words. Default nil: none asked.
    public var clientCertificateCAFile: String? = nil

    public init(host: String = "127.0.0.1", tlsPort: Int? = nil, cleartextPort: Int? = 0,
                certificateFile: String? = nil, privateKeyFile: String? = nil,
                settings: HTTP2Settings = HTTP2Settings(), maxRequestBodyBytes: Int = 8 << 20,
                maxHeaderListBytes: Int = 16 << 10, idleTimeout: Duration? = nil,
                idleGoAwayDebugData: [UInt8] = Array(#"{"reason":"IdleTimeout"}"#.utf8),
                shutdownGracePeriod: Duration = .seconds(10), handshakeTimeout: Duration? = .seconds(10),
                eventLoops: Int = 1) {
        self.host = host
        self.tlsPort = tlsPort
        self.cleartextPort = cleartextPort
        self.certificateFile = certificateFile
        self.privateKeyFile = privateKeyFile
        self.settings = settings
        self.maxRequestBodyBytes = maxRequestBodyBytes
        self.maxHeaderListBytes = maxHeaderListBytes
        self.idleTimeout = idleTimeout
        self.idleGoAwayDebugData = idleGoAwayDebugData
        self.shutdownGracePeriod = shutdownGracePeriod
        self.handshakeTimeout = handshakeTimeout
        self.eventLoops = eventLoops
    }
}

/// The ports the listeners actually bound (useful when the configuration asked for port 0).
public struct BoundAddresses: Sendable, Hashable {
    public var host: String
    public var tlsPort: Int?
    public var cleartextPort: Int?

    /// `https://host:port` of the TLS listener, IPv6 literals bracketed.
    public var tlsURL: String? { tlsPort.map { "https://\(hostForURL):\($0)" } }
    /// `http://host:port` of the cleartext listener.
    public var cleartextURL: String? { cleartextPort.map { "http://\(hostForURL):\($0)" } }

    private var hostForURL: String { host.contains(":") ? "[\(host)]" : host }
}

/// Counters for one client, summed over every finished exchange.
public struct HTTPClientStats: Sendable, Hashable {
    /// New connections libcurl had to open (CURLINFO_NUM_CONNECTS summed); 1 when every
    /// request rode one reused connection.
    public var connectionsOpened: Int = 0
    /// Exchanges that got a response (any status).
    public var requestsCompleted: Int = 0
    /// Exchanges that ended in an error (timeout, cancel, connect/TLS/protocol failure).
    public var requestsFailed: Int = 0

    public init() {}
}

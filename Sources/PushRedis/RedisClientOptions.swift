import Dispatch
import Foundation

/// How a `RedisClient` connects and backs off. Defaults suit a relay node next to its Redis.
public struct RedisClientOptions: Sendable, Hashable {
    /// Bound on establishing the TCP connection.
    public var connectTimeout: Duration = .seconds(2)
    /// Bound on every read and write of a command (a `BLOCK` read gets its block time on top).
    public var ioTimeout: Duration = .seconds(5)
    /// The first wait after a failed connection attempt; it doubles per failure up to
    /// `maximumBackoff`, with jitter, and resets once a connection succeeds.
    public var initialBackoff: Duration = .milliseconds(50)
    public var maximumBackoff: Duration = .seconds(2)
    /// `CLIENT SETNAME` after connecting (shows in `CLIENT LIST`), e.g. the relay node's name.
    public var clientName: String?

    public init(connectTimeout: Duration = .seconds(2), ioTimeout: Duration = .seconds(5),
                initialBackoff: Duration = .milliseconds(50), maximumBackoff: Duration = .seconds(2), clientName: String? = nil) {
        self.connectTimeout = connectTimeout
        self.ioTimeout = ioTimeout
        self.initialBackoff = initialBackoff
        self.maximumBackoff = maximumBackoff
        self.clientName = clientName
    }
}

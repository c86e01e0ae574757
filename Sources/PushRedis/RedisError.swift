/// Why a Redis command did not give a usable answer. Never carries a password.
public enum RedisError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No connection could be made (refused, unreachable, timed out); the client backs off
    /// before the next attempt.
    case unavailable(endpoint: String, reason: String)
    /// The connection broke while the command was in flight: the command may or may not have
    /// run. Only idempotent commands may simply be sent again.
    case connectionLost(endpoint: String, reason: String)
    /// The server answered with an error (`-ERR …`).
    case server(String)
    /// The answer does not have the shape the command promises.
    case unexpectedReply(command: String, reply: String)
    /// The client was closed.
    case closed

    public var description: String {
        switch self {
        case .unavailable(let endpoint, let reason):
            return "cannot reach Redis at \(endpoint): \(reason); check that redis-server runs there (--queue redis://HOST:PORT[/DB])"
        case .connectionLost(let endpoint, let reason):
            return "lost the connection to Redis at \(endpoint): \(reason)"
        case .server(let message): return "Redis answered an error: \(message)"
        case .unexpectedReply(let command, let reply): return "Redis answered \(command) with an unexpected reply: \(reply)"
        case .closed: return "the Redis client is closed"
        }
    }

    /// Whether the failure is about the connection (worth retrying after the backoff).
    public var isConnectionFailure: Bool {
        switch self {
        case .unavailable, .connectionLost: return true
        case .server, .unexpectedReply, .closed: return false
        }
    }
}

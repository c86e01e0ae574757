import Foundation
import PushHTTP
import Synchronization

/// Spreads requests over several transports (`--connections N`: one `HTTPClient` each, so
/// each holds its own HTTP/2 connection), in turn.
public final class RoundRobinTransport: HTTPTransport {
    private let transports: [any HTTPTransport]
    private let next = Counter()

    public init(_ transports: [any HTTPTransport]) {
        precondition(!transports.isEmpty, "RoundRobinTransport needs at least one transport")
        self.transports = transports
    }

    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        try await transports[next.increment() % transports.count].send(request)
    }
}

/// A thread-safe counter.
final class Counter: Sendable {
    private let value = Mutex(0)
    /// Returns the value before incrementing.
    func increment() -> Int { value.withLock { value in defer { value += 1 }; return value } }
}

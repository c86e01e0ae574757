import Foundation

/// Anything that can carry one request to a server. The libcurl `HTTPClient` is the real one;
/// code above the transport takes this protocol so tests and the simulator can drive it.
///
/// `send` runs on the caller's executor (`nonisolated(nonsending)`), so a call through the
/// protocol costs no executor hop; a conformance written as a plain `async` function still
/// runs on the global executor as before.
public protocol HTTPTransport: Sendable {
    nonisolated(nonsending) func send(_ request: HTTPRequest) async throws -> HTTPResponse
}

import Foundation

/// Anything that can carry one request to a server. The libcurl `HTTPClient` is the real one;
/// code above the transport takes this protocol so tests and the simulator can drive it.
public protocol HTTPTransport: Sendable {
    func send(_ request: HTTPRequest) async throws -> HTTPResponse
}

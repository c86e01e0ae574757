import Foundation
import PushHTTP
import Synchronization

/// A pure-logic stand-in for the token endpoint (caching tests). The same source is also
/// tested over the real libcurl client and HTTP/2 server in OAuthTokenSourceOverHTTPTests.
final class InMemoryTokenEndpoint: HTTPTransport {
    typealias Handler = @Sendable (HTTPRequest, Int) throws -> HTTPResponse
    private let handler: Handler
    private let delay: Duration
    private let seen = Mutex<[HTTPRequest]>([])

    init(delay: Duration = .zero, handler: @escaping Handler) {
        self.delay = delay
        self.handler = handler
    }

    /// Answers every request with a fresh token `token-<n>` valid for `expiresIn` seconds.
    static func issuing(expiresIn: Int = 3599, delay: Duration = .zero) -> InMemoryTokenEndpoint {
        InMemoryTokenEndpoint(delay: delay) { _, n in
            .json(200, #"{"access_token":"token-\#(n)","expires_in":\#(expiresIn),"token_type":"Bearer"}"#)
        }
    }

    var requests: [HTTPRequest] { seen.withLock { $0 } }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let n = seen.withLock { $0.append(request); return $0.count }
        if delay > .zero { try await Task.sleep(for: delay) }
        return try handler(request, n)
    }
}

/// For code paths that must not touch the network.
struct UnusedTransport: HTTPTransport {
    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        throw HTTPClientError.connectFailed("this test must not send requests")
    }
}

extension HTTPResponse {
    static func json(_ status: Int, _ body: String) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["content-type": "application/json"], body: Array(body.utf8))
    }
}

import Foundation
import PushHTTP

/// An in-memory `HTTPTransport` for pure-logic tests: a script answers each request and every
/// request is kept. Whatever a test checks this way is also checked over the real transport
/// (pushlab's `HTTPServer` and `HTTPClient`) in the same test target.
///
/// Like the real client, it throws `timedOut` for a reply slower than the request's timeout,
/// `responseTooLarge` for a body over the request's limit, and sets `effectiveURL`. Each target
/// adds the convenience its tests read best (PushSendTests: an answer per request number;
/// PushDeviceTests: a reply per request to the same URL, on an emulated clock).
public final class ScriptedTransport: HTTPTransport, Sendable {
    /// One answer: after `delay`, `error` if set, else `response` (nil: the connection fails).
    public struct Reply: Sendable {
        public var delay: Duration
        public var response: HTTPResponse?
        public var error: HTTPClientError?

        public init(delay: Duration = .zero, response: HTTPResponse? = nil, error: HTTPClientError? = nil) {
            self.delay = delay
            self.response = response
            self.error = error
        }
    }

    /// Which request the script answers: `number` counts every request from 1;
    /// `earlierToSameURL` counts the requests to its URL before it.
    public struct Call: Sendable {
        public let number: Int
        public let earlierToSameURL: Int
    }

    private struct Seen {
        var requests: [HTTPRequest] = []
        var perURL: [String: Int] = [:]
    }

    // Visible to TSan: `make sanitize` runs PushDeviceTests, whose tasks send concurrently.
    private let seen = SanitizerVisibleMutex(Seen())
    private let sleep: @Sendable (Duration) async throws -> Void
    private let script: @Sendable (HTTPRequest, Call) throws -> Reply

    /// `sleep` lets a reply's delay pass (real time: `{ try await Task.sleep(for: $0) }`; a test
    /// on an emulated clock sleeps on it); a cancelled sleep fails the request with `cancelled`.
    /// An error `script` throws is what `send` throws.
    public init(sleep: @escaping @Sendable (Duration) async throws -> Void,
                script: @escaping @Sendable (HTTPRequest, Call) throws -> Reply) {
        self.sleep = sleep
        self.script = script
    }

    /// Every request sent so far, in order.
    public var requests: [HTTPRequest] { seen.withLock { $0.requests } }

    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let call = seen.withLock { seen -> Call in
            let earlier = seen.perURL[request.url, default: 0]
            seen.perURL[request.url] = earlier + 1
            seen.requests.append(request)
            return Call(number: seen.requests.count, earlierToSameURL: earlier)
        }
        let reply = try script(request, call)
        if reply.delay > .zero {
            do { try await sleep(reply.delay) } catch { throw HTTPClientError.cancelled }
        }
        if let timeout = request.timeout, reply.delay > timeout { throw HTTPClientError.timedOut(after: timeout) }
        if let error = reply.error { throw error }
        guard var response = reply.response else { throw HTTPClientError.connectFailed("no route") }
        if let max = request.maxResponseBodyBytes, response.body.count > max { throw HTTPClientError.responseTooLarge(limit: max) }
        response.effectiveURL = request.url
        return response
    }
}

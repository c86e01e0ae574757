import Foundation
import PushHTTP

/// An in-memory transport for the pipeline's pure-logic tests: answers each request with the
/// next scripted status (the last one repeats) and records what it was sent. The same rules
/// are also checked over the real HTTP transport in EventPipelineCaptureServerTests.
final class EventPipelineScriptedTransport: HTTPTransport, @unchecked Sendable {
    enum Reply { case status(Int), networkError }
    // Protected by `lock`.
    private var replies: [Reply]
    private var sent: [HTTPRequest] = []
    private let lock = NSLock()

    init(_ replies: [Reply] = [.status(200)]) { self.replies = replies }

    var requests: [HTTPRequest] { lock.withLock { sent } }

    func script(_ replies: [Reply]) { lock.withLock { self.replies = replies } }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let reply: Reply = lock.withLock {
            sent.append(request)
            return replies.count > 1 ? replies.removeFirst() : replies[0]
        }
        switch reply {
        case .status(let s): return HTTPResponse(status: s, body: Array("{}".utf8))
        case .networkError: throw HTTPClientError.connectFailed("connection refused (scripted)")
        }
    }
}

import Foundation
import PushHTTP
import TestSupport

/// A scripted transport for the pipeline's pure-logic tests: answers each request with the
/// next scripted status (the last one repeats) and records what it was sent. The same rules
/// are also checked over the real HTTP transport in EventPipelineCaptureServerTests.
final class EventPipelineScriptedTransport: HTTPTransport, Sendable {
    enum Reply: Sendable { case status(Int), networkError }
    private let replies: SanitizerVisibleMutex<[Reply]>
    private let transport: ScriptedTransport

    init(_ replies: [Reply] = [.status(200)]) {
        let queue = SanitizerVisibleMutex(replies)
        self.replies = queue
        transport = ScriptedTransport(sleep: { try await Task.sleep(for: $0) }) { _, _ in
            switch queue.withLock({ $0.count > 1 ? $0.removeFirst() : $0[0] }) {
            case .status(let s): return ScriptedTransport.Reply(response: HTTPResponse(status: s, body: Array("{}".utf8)))
            case .networkError: return ScriptedTransport.Reply(error: .connectFailed("connection refused (scripted)"))
            }
        }
    }

    var requests: [HTTPRequest] { transport.requests }

    func script(_ replies: [Reply]) { self.replies.withLock { $0 = replies } }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse { try await transport.send(request) }
}

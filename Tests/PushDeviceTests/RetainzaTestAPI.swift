import Foundation
import PushCore
import PushDevice
import PushHTTP
import Synchronization

/// The ingest API as the queue-rule tests script it: each request is recorded and answered by
/// `answer` (a status, or nil for a network error). Pure-logic tests of the SDK's rules; the
/// wire to the real collector is covered by PushMetricsTests/RetainzaIngestTests.
final class RetainzaTestAPI: HTTPTransport {
    struct Sent: Sendable {
        var path: String
        var body: JSONObject
    }
    private let state = Mutex<(answer: @Sendable (String) -> Int?, sent: [Sent])>(({ _ in 200 }, []))

    init(_ answer: @escaping @Sendable (String) -> Int? = { _ in 200 }) { state.withLock { $0.answer = answer } }

    func answer(_ f: @escaping @Sendable (String) -> Int?) { state.withLock { $0.answer = f } }
    func online() { answer { _ in 200 } }
    func offline() { answer { _ in nil } }
    var sent: [Sent] { state.withLock { $0.sent } }
    func sent(to suffix: String) -> [Sent] { sent.filter { $0.path.hasSuffix(suffix) } }

    struct NetworkDown: Error {}

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let path = URLComponents(string: request.url)?.path ?? request.url
        let status: Int? = state.withLock { s in
            let status = s.answer(path)
            if status != nil {
                s.sent.append(Sent(path: path, body: (try? JSONDocument.parse(request.body))?.root.objectValue ?? JSONObject()))
            }
            return status
        }
        guard let status else { throw NetworkDown() }
        return HTTPResponse(status: status)
    }
}

enum RetainzaTestProfiles {
    static func app(_ change: (inout RetainzaAppProfile) -> Void = { _ in }) -> RetainzaAppProfile {
        var p = RetainzaAppProfile(publicKey: "pk_test_4f9a1c2e", baseURL: "https://ingest.test/retainza/v1")
        change(&p)
        return p
    }

    /// Fixed install ids, so tests can compare them.
    struct Identifiers: IdentifierSource {
        func uuid() -> UUID { UUID(uuidString: "8C1D9E58-5B1B-4E0C-9A49-0D2A3E9F7B11")! }
        func lowercaseLetters(_ count: Int) -> String { String(repeating: "a", count: count) }
    }
}

import Foundation
import PushHTTP

/// An in-memory transport for pure-logic client tests: a closure answers each request and
/// every request is kept. (The same behaviours are also tested over real HTTP/2 + TLS.)
final class ScriptedTransport: HTTPTransport, @unchecked Sendable {
    private let lock = NSLock()
    private var seen: [HTTPRequest] = []  // protected by `lock`
    private let answer: @Sendable (HTTPRequest, Int) throws -> HTTPResponse

    /// `answer` gets the request and its 1-based number.
    init(_ answer: @escaping @Sendable (HTTPRequest, Int) throws -> HTTPResponse) { self.answer = answer }

    var requests: [HTTPRequest] { lock.withLock { seen } }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let n = lock.withLock { seen.append(request); return seen.count }
        return try answer(request, n)
    }
}

enum TestTokens {
    static let apns = String(repeating: "ab", count: 32)
    static func apns(_ i: Int) -> String { String(format: "%064x", i) }
    static let fcm = "dGVzdC1pbnN0YW5jZS1pZA:APA91b" + String(repeating: "Xy9_-Q", count: 24)
    static func fcm(_ i: Int) -> String { "inst\(i):APA91b" + String(repeating: "Zz9_-Q", count: 24) }
}

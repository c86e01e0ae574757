import Foundation
import PushHTTP
import TestSupport

extension ScriptedTransport {
    /// For pure-logic client tests: `answer` gets the request and its 1-based number, and its
    /// response is sent at once. (The same behaviours are also tested over real HTTP/2 + TLS.)
    convenience init(_ answer: @escaping @Sendable (HTTPRequest, Int) throws -> HTTPResponse) {
        self.init(sleep: { try await Task.sleep(for: $0) }) { request, call in Reply(response: try answer(request, call.number)) }
    }
}

enum TestTokens {
    static let apns = String(repeating: "ab", count: 32)
    static func apns(_ i: Int) -> String { String(format: "%064x", i) }
    static let fcm = "dGVzdC1pbnN0YW5jZS1pZA:APA91b" + String(repeating: "Xy9_-Q", count: 24)
    static func fcm(_ i: Int) -> String { "inst\(i):APA91b" + String(repeating: "Zz9_-Q", count: 24) }
}

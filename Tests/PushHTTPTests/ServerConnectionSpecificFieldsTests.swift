import Foundation
import PushHTTP
import TestSupport
import XCTest

/// RFC 9113 §8.2.2: connection-specific fields a handler sets are left out of HTTP/2 answers
/// (a client would treat them as malformed), in any letter case; other fields go out, lowercased.
final class ServerConnectionSpecificFieldsTests: XCTestCase {
    func testHTTP2AnswersLeaveOutConnectionSpecificFields() async throws {
        var router = Router()
        router.add("GET", "/fields") { _ in
            var response = ServerResponse.text(200, "ok")
            for name in ["Connection", "keep-alive", "Proxy-Connection", "TRANSFER-ENCODING", "upgrade", "x-kept", "connection-id", "X-Mixed-Case"] {
                response.headers.add(name, "1")
            }
            return .now(response)
        }
        let server = try ServerTestFixture.start(router)
        let result = try ServerTestFixture.curl(["--http2", "https://localhost:\(server.tlsPort!)/fields"])
        await server.stop()
        XCTAssertEqual(result.status, 200, result.stderr)
        XCTAssertEqual(result.version, "2")
        let names = result.headers.lowercased().split(separator: "\r\n").compactMap { $0.split(separator: ":").first.map(String.init) }
        XCTAssertTrue(names.contains("x-kept"), result.headers)
        XCTAssertTrue(names.contains("connection-id"), result.headers)
        // HTTP/2 field names go out in lowercase (RFC 9113 §8.2.1), whatever the handler wrote.
        XCTAssertTrue(result.headers.contains("x-mixed-case: 1"), result.headers)
        for dropped in ["connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade"] {
            XCTAssertFalse(names.contains(dropped), "\(dropped) in \(result.headers)")
        }
    }
}

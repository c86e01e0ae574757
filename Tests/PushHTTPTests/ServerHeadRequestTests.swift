import Foundation
import PushHTTP
import TestSupport
import XCTest

/// HEAD on a GET route: the GET answer's status and fields, no content (RFC 9110 §9.3.2).
final class ServerHeadRequestTests: XCTestCase {
    func testHeadAnswersLikeGetWithoutTheBodyOnBothVersions() async throws {
        let server = try ServerTestFixture.start(ServerTestFixture.standardRouter())
        let tls = "https://localhost:\(server.tlsPort!)"
        for version in ["--http2", "--http1.1"] {
            let head = try ServerTestFixture.curl([version, "--head", "\(tls)/bytes/1000"])
            XCTAssertEqual(head.status, 200, "\(version): \(head.stderr)")
            XCTAssertTrue(head.body.isEmpty || head.bodyText.hasPrefix("HTTP/"), "\(version): content in a HEAD answer")
            XCTAssertTrue(head.headers.lowercased().contains("content-length: 1000"), "\(version): \(head.headers)")
            let get = try ServerTestFixture.curl([version, "\(tls)/bytes/1000"])
            XCTAssertEqual(get.body.count, 1000, version)
        }
        await server.stop()
    }
}

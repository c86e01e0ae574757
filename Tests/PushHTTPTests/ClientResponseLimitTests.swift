import PushHTTP
import TestSupport
import XCTest

/// `maxResponseBodyBytes` stops a transfer whose body is too big.
class ClientResponseLimitTests: ClientTransportTestCase {
    func testBodyOverTheLimitAbortsTheTransfer() async throws {
        let server = try ClientTestServer()
        let client = try makeClient(.testing())
        do {
            _ = try await client.send(HTTPRequest(url: server.tlsURL + "/bytes/4000000", maxResponseBodyBytes: 1024))
            XCTFail("4 MB is over a 1 KB limit")
        } catch let error as HTTPClientError {
            XCTAssertEqual(error, .responseTooLarge(limit: 1024))
        }
        // A body at the limit is fine, and the connection survived the aborted stream.
        let exact = try await client.send(HTTPRequest(url: server.tlsURL + "/bytes/1024", maxResponseBodyBytes: 1024))
        XCTAssertEqual(exact.body.count, 1024)
        XCTAssertEqual(client.stats.connectionsOpened, 1)
        await client.shutdown()
        await server.stop()
    }
}

/// The same suite against the direct nghttp2 client (Linux test discovery sees only methods
/// a class declares, hence one forwarding line per test).
final class NGHTTP2ClientResponseLimitTests: ClientResponseLimitTests {
    override class var transport: HTTPTransportKind { .nghttp2 }
    override func testBodyOverTheLimitAbortsTheTransfer() async throws { try await super.testBodyOverTheLimitAbortsTheTransfer() }
}

import PushHTTP
import TestSupport
import XCTest

/// libcurl adds `Expect: 100-continue` to larger HTTP/1.1 uploads (a round trip of waiting);
/// the client stops it with an "Expect:" line, which it leaves out of the header list for
/// bodies too small for libcurl to add the header (every line costs libcurl work per request).
/// Whatever the size, no request may carry the header.
class ClientExpectHeaderTests: ClientTransportTestCase {
    func testNoUploadSizeSendsExpectContinueInAnyMode() async throws {
        let server = try ClientTestServer()
        for mode in [HTTPClientConfiguration.ProtocolMode.http1, .http2, .h2cPriorKnowledge] {
            let client = try makeClient(.testing(mode))
            let base = mode == .http2 ? server.tlsURL : server.cleartextURL
            // Around the 1024-byte threshold (libcurl's older one), and past 1 MiB (the newer one); each size
            // twice, so a pooled handle's reused header list is exercised in both directions.
            for size in [10, 1023, 1024, 1025, 1_100_000, 10, 1_100_000, 1023] {
                let body = [UInt8](repeating: UInt8(ascii: "x"), count: size)
                let response = try await client.send(HTTPRequest(method: "POST", url: base + "/echo",
                                                                 headers: ["content-type": "application/octet-stream"], body: body))
                XCTAssertEqual(response.status, 200, "\(mode), \(size) bytes")
                XCTAssertEqual(response.headers["x-expect"], "", "\(mode), \(size) bytes: the request carried Expect")
                XCTAssertEqual(response.headers["x-content-type"], "application/octet-stream", "\(mode), \(size) bytes")
                XCTAssertEqual(response.body.count, "POST /echo seq=-\n".utf8.count + size, "\(mode), \(size) bytes")
            }
            await client.shutdown()
        }
        await server.stop()
    }
}

/// The same suite against the direct nghttp2 client (Linux test discovery sees only methods
/// a class declares, hence one forwarding line per test).
final class NGHTTP2ClientExpectHeaderTests: ClientExpectHeaderTests {
    override class var transport: HTTPTransportKind { .nghttp2 }
    override func testNoUploadSizeSendsExpectContinueInAnyMode() async throws { try await super.testNoUploadSizeSendsExpectContinueInAnyMode() }
}

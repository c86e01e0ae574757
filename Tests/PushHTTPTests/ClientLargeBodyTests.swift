import PushHTTP
import TestSupport
import XCTest

/// Bodies well past one HTTP/2 frame and the default flow-control window, both ways.
class ClientLargeBodyTests: ClientTransportTestCase {
    func testMegabyteBodiesTravelIntactBothWays() async throws {
        let server = try ClientTestServer()
        for mode in [HTTPClientConfiguration.ProtocolMode.http2, .h2cPriorKnowledge, .http1] {
            let client = try makeClient(.testing(mode))
            let base = mode == .http2 ? server.tlsURL : server.cleartextURL
            let upload = ClientTestServer.pattern(1_500_000).reversed() as [UInt8]
            let sent = try await client.send(HTTPRequest(method: "POST", url: base + "/upload", body: upload))
            XCTAssertEqual(sent.bodyText, "\(upload.count) \(ClientTestServer.checksum(upload))", "\(mode) upload")

            let download = try await client.send(HTTPRequest(url: base + "/bytes/2000000"))
            XCTAssertEqual(download.status, 200)
            XCTAssertEqual(download.body.count, 2_000_000, "\(mode) download")
            XCTAssertEqual(download.body, ClientTestServer.pattern(2_000_000), "\(mode) download content")
            await client.shutdown()
        }
        await server.stop()
    }
}

/// The same suite against the direct nghttp2 client (Linux test discovery sees only methods
/// a class declares, hence one forwarding line per test).
final class NGHTTP2ClientLargeBodyTests: ClientLargeBodyTests {
    override class var transport: HTTPTransportKind { .nghttp2 }
    override func testMegabyteBodiesTravelIntactBothWays() async throws { try await super.testMegabyteBodiesTravelIntactBothWays() }
}

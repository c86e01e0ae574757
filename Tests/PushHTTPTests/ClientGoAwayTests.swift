import PushHTTP
import TestSupport
import XCTest

/// After the server sends GOAWAY, later requests go out on a fresh connection.
class ClientGoAwayTests: ClientTransportTestCase {
    func testRequestsAfterGoAwayOpenANewConnection() async throws {
        for mode in [HTTPClientConfiguration.ProtocolMode.http2, .h2cPriorKnowledge] {
            let server = try ClientTestServer()
            let base = mode == .http2 ? server.tlsURL : server.cleartextURL
            let client = try makeClient(.testing(mode))
            let bye = try await client.send(HTTPRequest(url: base + "/goaway"))
            XCTAssertEqual(bye.bodyText, "bye")
            // The server closes the connection after its GOAWAY: wait for that event, so the
            // next requests find the connection gone instead of racing the close.
            let closed = await Poll.until { await server.server.openConnectionCount() == 0 }
            XCTAssertTrue(closed, "\(mode): the server kept the connection after GOAWAY")
            let outcomes = try await withThrowingTaskGroup(of: String.self) { group in
                for seq in 0..<20 {
                    group.addTask {
                        let response = try await client.send(HTTPRequest(url: base + "/echo", headers: ["x-seq": "\(seq)"]))
                        return "\(response.status) \(response.version.rawValue)"
                    }
                }
                return try await group.reduce(into: [String]()) { $0.append($1) }
            }
            XCTAssertEqual(outcomes, Array(repeating: "200 HTTP/2", count: 20), "\(mode): still HTTP/2 after reconnecting")
            XCTAssertEqual(client.stats.connectionsOpened, 2, "\(mode): one connection before GOAWAY, one after")
            await client.shutdown()
            await server.stop()
        }
    }
}

/// The same suite against the direct nghttp2 client (Linux test discovery sees only methods
/// a class declares, hence one forwarding line per test).
final class NGHTTP2ClientGoAwayTests: ClientGoAwayTests {
    override class var transport: HTTPTransportKind { .nghttp2 }
    override func testRequestsAfterGoAwayOpenANewConnection() async throws { try await super.testRequestsAfterGoAwayOpenANewConnection() }
}

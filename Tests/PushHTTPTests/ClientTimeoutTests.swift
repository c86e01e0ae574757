import PushHTTP
import TestSupport
import XCTest

/// A request that outlives its deadline fails with `.timedOut`; the client carries on.
class ClientTimeoutTests: ClientTransportTestCase {
    func testPerRequestTimeoutFailsASlowExchange() async throws {
        let server = try ClientTestServer()
        let client = try makeClient(.testing())
        do {
            _ = try await client.send(HTTPRequest(url: server.tlsURL + "/slow/3000", timeout: .milliseconds(200)))
            XCTFail("the handler sleeps 3 s; 200 ms must time out")
        } catch let error as HTTPClientError {
            XCTAssertEqual(error, .timedOut(after: .milliseconds(200)))
        }
        // The connection (and the client) still serve the next request.
        let next = try await client.send(HTTPRequest(url: server.tlsURL + "/slow/1", timeout: .seconds(10)))
        XCTAssertEqual(next.status, 200)
        XCTAssertEqual(client.stats.requestsFailed, 1)
        await client.shutdown()
        await server.stop()
    }

    func testConfiguredDefaultTimeoutAppliesWhenTheRequestSetsNone() async throws {
        let server = try ClientTestServer()
        let client = try makeClient(.testing(.h2cPriorKnowledge, requestTimeout: .milliseconds(150)))
        do {
            _ = try await client.send(HTTPRequest(url: server.cleartextURL + "/slow/3000"))
            XCTFail("must time out")
        } catch let error as HTTPClientError {
            XCTAssertEqual(error, .timedOut(after: .milliseconds(150)))
        }
        await client.shutdown()
        await server.stop()
    }
}

/// The same suite against the direct nghttp2 client (Linux test discovery sees only methods
/// a class declares, hence one forwarding line per test).
final class NGHTTP2ClientTimeoutTests: ClientTimeoutTests {
    override class var transport: HTTPTransportKind { .nghttp2 }
    override func testPerRequestTimeoutFailsASlowExchange() async throws { try await super.testPerRequestTimeoutFailsASlowExchange() }
    override func testConfiguredDefaultTimeoutAppliesWhenTheRequestSetsNone() async throws { try await super.testConfiguredDefaultTimeoutAppliesWhenTheRequestSetsNone() }
}

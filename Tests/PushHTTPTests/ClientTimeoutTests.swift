import PushHTTP
import TestSupport
import XCTest

/// A request that outlives its deadline fails with `.timedOut`; the client carries on.
final class ClientTimeoutTests: XCTestCase {
    func testPerRequestTimeoutFailsASlowExchange() async throws {
        let server = try ClientTestServer()
        let client = try HTTPClient(configuration: .testing())
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
        let client = try HTTPClient(configuration: .testing(.h2cPriorKnowledge, requestTimeout: .milliseconds(150)))
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

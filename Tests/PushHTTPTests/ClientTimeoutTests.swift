import PushHTTP
import TestSupport
import XCTest

/// A request that outlives its deadline fails with `.timedOut`; the client carries on. The
/// request goes to `/held`, whose answer comes only when the server stops: no race between
/// the deadline and a handler's sleep.
class ClientTimeoutTests: ClientTransportTestCase {
    func testPerRequestTimeoutFailsASlowExchange() async throws {
        let server = try ClientTestServer()
        let hangGuard = Self.openHeld(of: server)
        defer { hangGuard.cancel() }
        let client = try makeClient(.testing())
        do {
            _ = try await client.send(HTTPRequest(url: server.tlsURL + "/held", timeout: .milliseconds(200)))
            XCTFail("the handler holds the answer until the test ends; 200 ms must time out")
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
        let hangGuard = Self.openHeld(of: server)
        defer { hangGuard.cancel() }
        let client = try makeClient(.testing(.h2cPriorKnowledge, requestTimeout: .milliseconds(150)))
        do {
            _ = try await client.send(HTTPRequest(url: server.cleartextURL + "/held"))
            XCTFail("the handler holds the answer until the test ends; must time out")
        } catch let error as HTTPClientError {
            XCTAssertEqual(error, .timedOut(after: .milliseconds(150)))
        }
        await client.shutdown()
        await server.stop()
    }

    /// A hang guard, not a timing assertion: if the client's timeout never fires, `/held` answers
    /// after a minute and the test fails on the answer instead of hanging the suite.
    static func openHeld(of server: ClientTestServer) -> Task<Void, Never> {
        Task {
            guard (try? await Task.sleep(for: .seconds(60))) != nil else { return }
            server.held.open()
        }
    }
}

/// The same suite against the direct nghttp2 client (Linux test discovery sees only methods
/// a class declares, hence one forwarding line per test).
final class NGHTTP2ClientTimeoutTests: ClientTimeoutTests {
    override class var transport: HTTPTransportKind { .nghttp2 }
    override func testPerRequestTimeoutFailsASlowExchange() async throws { try await super.testPerRequestTimeoutFailsASlowExchange() }
    override func testConfiguredDefaultTimeoutAppliesWhenTheRequestSetsNone() async throws { try await super.testConfiguredDefaultTimeoutAppliesWhenTheRequestSetsNone() }
}

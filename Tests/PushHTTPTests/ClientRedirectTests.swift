import PushHTTP
import TestSupport
import XCTest

/// Redirects are followed by the client itself, so every hop is recorded.
class ClientRedirectTests: ClientTransportTestCase {
    func testRedirectsAreFollowedAndTheChainRecorded() async throws {
        let server = try ClientTestServer()
        let client = try makeClient(.testing())
        let start = server.tlsURL + "/redirect/3"
        let response = try await client.send(HTTPRequest(url: start, maxRedirects: 5))
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.bodyText, "arrived")
        XCTAssertEqual(response.redirectChain, [start] + (0..<3).reversed().map { server.tlsURL + "/redirect/\($0)" })
        XCTAssertEqual(response.effectiveURL, server.tlsURL + "/redirect/0")
        await client.shutdown()
        await server.stop()
    }

    func testRedirectsAreNotFollowedByDefault() async throws {
        let server = try ClientTestServer()
        let client = try makeClient(.testing())
        let response = try await client.send(HTTPRequest(url: server.tlsURL + "/redirect/1"))
        XCTAssertEqual(response.status, 302)
        XCTAssertEqual(response.headers["location"], "/redirect/0")
        await client.shutdown()
        await server.stop()
    }

    func testTooManyRedirectsFail() async throws {
        let server = try ClientTestServer()
        let client = try makeClient(.testing())
        do {
            _ = try await client.send(HTTPRequest(url: server.tlsURL + "/redirect/4", maxRedirects: 2))
            XCTFail("4 hops exceed 2")
        } catch let error as HTTPClientError {
            XCTAssertEqual(error, .tooManyRedirects(limit: 2))
        }
        await client.shutdown()
        await server.stop()
    }

    func testSeeOtherTurnsAPostIntoAGetAnd307KeepsIt() async throws {
        let server = try ClientTestServer()
        let client = try makeClient(.testing())
        let seeOther = try await client.send(HTTPRequest(method: "POST", url: server.tlsURL + "/see-other",
                                                         body: Array("data".utf8), maxRedirects: 1))
        XCTAssertEqual(seeOther.bodyText, "GET /echo seq=-\n")
        let temporary = try await client.send(HTTPRequest(method: "POST", url: server.tlsURL + "/temporary",
                                                          body: Array("data".utf8), maxRedirects: 1))
        XCTAssertEqual(temporary.bodyText, "POST /echo seq=-\ndata")
        await client.shutdown()
        await server.stop()
    }
}

/// The same suite against the direct nghttp2 client (Linux test discovery sees only methods
/// a class declares, hence one forwarding line per test).
final class NGHTTP2ClientRedirectTests: ClientRedirectTests {
    override class var transport: HTTPTransportKind { .nghttp2 }
    override func testRedirectsAreFollowedAndTheChainRecorded() async throws { try await super.testRedirectsAreFollowedAndTheChainRecorded() }
    override func testRedirectsAreNotFollowedByDefault() async throws { try await super.testRedirectsAreNotFollowedByDefault() }
    override func testTooManyRedirectsFail() async throws { try await super.testTooManyRedirectsFail() }
    override func testSeeOtherTurnsAPostIntoAGetAnd307KeepsIt() async throws { try await super.testSeeOtherTurnsAPostIntoAGetAnd307KeepsIt() }
}

import PushHTTP
import TestSupport
import XCTest

/// A request goes out and its own response comes back, in each protocol mode.
class ClientRoundTripTests: ClientTransportTestCase {
    func testTLSWithALPNSpeaksHTTP2() async throws {
        let server = try ClientTestServer()
        let client = try makeClient(.testing(.http2))
        let response = try await client.send(HTTPRequest(method: "POST", url: server.tlsURL + "/echo",
                                                         headers: ["x-seq": "7"], body: Array("hello".utf8)))
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.version, .http2)
        XCTAssertEqual(response.headers["x-version"], "HTTP/2")
        XCTAssertEqual(response.bodyText, "POST /echo seq=7\nhello")
        XCTAssertEqual(response.redirectChain, [server.tlsURL + "/echo"])
        XCTAssertEqual(response.effectiveURL, server.tlsURL + "/echo")
        XCTAssertGreaterThan(response.timings.total, .zero)
        XCTAssertGreaterThan(response.timings.tlsHandshake, .zero, "the first request pays for the handshake")
        await client.shutdown()
        await server.stop()
    }

    func testH2cWithPriorKnowledgeSpeaksHTTP2WithoutTLS() async throws {
        let server = try ClientTestServer()
        let client = try makeClient(.testing(.h2cPriorKnowledge))
        // Several in a row: libcurl 7.88 fails every prior-knowledge request that reuses the
        // connection unless the client works around it (PriorKnowledgeGate).
        for seq in 0..<5 {
            let response = try await client.send(HTTPRequest(url: server.cleartextURL + "/echo", headers: ["x-seq": "\(seq)"]))
            XCTAssertEqual(response.status, 200)
            XCTAssertEqual(response.version, .http2)
            XCTAssertEqual(response.bodyText, "GET /echo seq=\(seq)\n")
        }
        XCTAssertEqual(client.stats.connectionsOpened, 1)
        await client.shutdown()
        await server.stop()
    }

    func testHTTP1ModeSpeaksHTTP1OverCleartextAndTLS() async throws {
        let server = try ClientTestServer()
        let client = try makeClient(.testing(.http1))
        for base in [server.cleartextURL, server.tlsURL] {
            let response = try await client.send(HTTPRequest(method: "PUT", url: base + "/echo", body: Array("x".utf8)))
            XCTAssertEqual(response.status, 200)
            XCTAssertEqual(response.version, .http1_1)
            XCTAssertEqual(response.headers["x-version"], "HTTP/1.1")
            XCTAssertEqual(response.bodyText, "PUT /echo seq=-\nx")
        }
        await client.shutdown()
        await server.stop()
    }

    func testHeadersGoOutAsGivenAndComeBackInOrder() async throws {
        let server = try ClientTestServer()
        let client = try makeClient(.testing())
        let response = try await client.send(HTTPRequest(method: "POST", url: server.tlsURL + "/echo",
                                                         headers: ["user-agent": "custom/1", "content-type": "application/json"],
                                                         body: Array("{}".utf8)))
        XCTAssertEqual(response.headers["x-user-agent"], "custom/1")
        XCTAssertEqual(response.headers["x-content-type"], "application/json")
        let names = response.headers.map(\.name).filter { $0.hasPrefix("x-") }
        XCTAssertEqual(Array(names.prefix(4)), ["x-seq", "x-version", "x-first", "x-second"])

        // No body, no content type: libcurl's form content type must not leak in.
        let bare = try await client.send(HTTPRequest(method: "POST", url: server.tlsURL + "/echo"))
        XCTAssertEqual(bare.headers["x-content-type"], "")
        XCTAssertEqual(bare.headers["x-user-agent"], "pushlab/0.1")
        let deleted = try await client.send(HTTPRequest(method: "DELETE", url: server.tlsURL + "/echo"))
        XCTAssertEqual(deleted.bodyText, "DELETE /echo seq=-\n")
        await client.shutdown()
        await server.stop()
    }

    func testAReusedHandleSendsEachRequestsOwnHeaderValues() async throws {
        // One request at a time: every exchange reuses the same pooled handle and header list,
        // whose lines are rewritten in place when only values change.
        let server = try ClientTestServer()
        let client = try makeClient(.testing())
        for (seq, type) in [("1", "text/a"), ("2", "text/a"), ("3", "text/b"), ("4", "text/b")] {
            let response = try await client.send(HTTPRequest(method: "POST", url: server.tlsURL + "/echo",
                                                             headers: ["x-seq": seq, "content-type": type], body: [1]))
            XCTAssertEqual(response.headers["x-seq"], seq)
            XCTAssertEqual(response.headers["x-content-type"], type)
        }
        // Other names, another count, then the first shape again.
        let other = try await client.send(HTTPRequest(method: "POST", url: server.tlsURL + "/echo",
                                                      headers: ["user-agent": "custom/2"], body: [1]))
        XCTAssertEqual(other.headers["x-seq"], "-")
        XCTAssertEqual(other.headers["x-user-agent"], "custom/2")
        XCTAssertEqual(other.headers["x-content-type"], "")
        let again = try await client.send(HTTPRequest(method: "POST", url: server.tlsURL + "/echo",
                                                      headers: ["x-seq": "5", "content-type": "text/c"], body: [1]))
        XCTAssertEqual(again.headers["x-seq"], "5")
        XCTAssertEqual(again.headers["x-content-type"], "text/c")
        XCTAssertEqual(again.headers["x-user-agent"], "pushlab/0.1")
        XCTAssertEqual(client.stats.connectionsOpened, 1)
        await client.shutdown()
        await server.stop()
    }

    func testNonHTTPURLIsRejectedAsInvalid() async throws {
        let client = try makeClient(.testing())
        do {
            _ = try await client.send(HTTPRequest(url: "ftp://127.0.0.1:1/file"))
            XCTFail("ftp must not be fetched")
        } catch let error as HTTPClientError {
            XCTAssertEqual(error, .invalidURL("ftp://127.0.0.1:1/file"))
        }
        await client.shutdown()
    }

    func testRefusedConnectionIsConnectFailed() async throws {
        // Bind a port, then close it, so nothing listens there.
        let server = try ClientTestServer()
        let url = server.cleartextURL + "/echo"
        await server.stop()
        let client = try makeClient(.testing())
        do {
            _ = try await client.send(HTTPRequest(url: url))
            XCTFail("nothing listens there")
        } catch let error as HTTPClientError {
            guard case .connectFailed = error else { return XCTFail("got \(error)") }
        }
        await client.shutdown()
    }
}

/// The same suite against the direct nghttp2 client (Linux test discovery sees only methods
/// a class declares, hence one forwarding line per test).
final class NGHTTP2ClientRoundTripTests: ClientRoundTripTests {
    override class var transport: HTTPTransportKind { .nghttp2 }
    override func testTLSWithALPNSpeaksHTTP2() async throws { try await super.testTLSWithALPNSpeaksHTTP2() }
    override func testH2cWithPriorKnowledgeSpeaksHTTP2WithoutTLS() async throws { try await super.testH2cWithPriorKnowledgeSpeaksHTTP2WithoutTLS() }
    override func testHTTP1ModeSpeaksHTTP1OverCleartextAndTLS() async throws { try await super.testHTTP1ModeSpeaksHTTP1OverCleartextAndTLS() }
    override func testHeadersGoOutAsGivenAndComeBackInOrder() async throws { try await super.testHeadersGoOutAsGivenAndComeBackInOrder() }
    override func testAReusedHandleSendsEachRequestsOwnHeaderValues() async throws { try await super.testAReusedHandleSendsEachRequestsOwnHeaderValues() }
    override func testNonHTTPURLIsRejectedAsInvalid() async throws { try await super.testNonHTTPURLIsRejectedAsInvalid() }
    override func testRefusedConnectionIsConnectFailed() async throws { try await super.testRefusedConnectionIsConnectFailed() }
}

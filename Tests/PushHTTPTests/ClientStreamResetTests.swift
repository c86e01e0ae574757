import PushHTTP
import TestSupport
import XCTest

/// libcurl 7.88 resets every stream whose response had no body; nghttp2 servers with the
/// CVE-2023-44487 defence (pushlab's own included) answer the 1000th such reset with GOAWAY.
/// The client drops those redundant resets, so bodiless responses keep one connection alive.
class ClientStreamResetTests: ClientTransportTestCase {
    func testThisProcessDropsRedundantResets() {
        XCTAssertTrue(HTTPClient.dropsRedundantStreamResets, "the test binary must export the nghttp2_submit_rst_stream override")
    }

    func testManyBodilessResponsesKeepOneConnection() async throws {
        let server = try ClientTestServer()
        let client = try makeClient(.testing())
        let total = 1500, window = 100
        var failures = 0
        try await withThrowingTaskGroup(of: Int.self) { group in
            var started = 0
            func launch() {
                started += 1
                group.addTask { try await client.send(HTTPRequest(method: "POST", url: server.tlsURL + "/accepted")).status }
            }
            while started < window { launch() }
            while let status = try await group.next() {
                if status != 200 { failures += 1 }
                if started < total { launch() }
            }
        }
        XCTAssertEqual(failures, 0)
        XCTAssertEqual(client.stats.requestsCompleted, total)
        XCTAssertEqual(client.stats.connectionsOpened, 1, "a GOAWAY after ~1000 resets would force a second connection")
        await client.shutdown()
        await server.stop()
    }
}

/// The same suite against the direct nghttp2 client (Linux test discovery sees only methods
/// a class declares, hence one forwarding line per test).
final class NGHTTP2ClientStreamResetTests: ClientStreamResetTests {
    override class var transport: HTTPTransportKind { .nghttp2 }
    override func testThisProcessDropsRedundantResets() { super.testThisProcessDropsRedundantResets() }
    override func testManyBodilessResponsesKeepOneConnection() async throws { try await super.testManyBodilessResponsesKeepOneConnection() }
}

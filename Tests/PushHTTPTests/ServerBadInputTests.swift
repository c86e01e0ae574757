import Foundation
import PushHTTP
import TestSupport
import XCTest

/// Misbehaving peers get a protocol answer (400, 413, 431, GOAWAY, a closed TLS connection),
/// never a crash, a leaked connection or a disturbed neighbour.
final class ServerBadInputTests: XCTestCase {
    private var server: HTTPServer!
    /// Holds the neighbour's `/slow` request in its handler while an attack runs.
    private let neighbourGate = Gate()

    override func setUp() async throws {
        var router = ServerTestFixture.standardRouter()
        let gate = neighbourGate
        router.add("GET", "/slow") { _ in
            .later {
                await gate.pass()
                return .text(200, "slow")
            }
        }
        server = try ServerTestFixture.start(router) { configuration in
            configuration.maxRequestBodyBytes = 64 << 10
            configuration.maxHeaderListBytes = 8 << 10
        }
    }

    override func tearDown() async throws {
        neighbourGate.open()
        await server.stop()
    }

    private var tls: String { "https://localhost:\(server.tlsPort!)" }
    private var cleartext: String { "http://127.0.0.1:\(server.cleartextPort!)" }

    private func badClient(_ mode: String, tls: Bool = false, _ extra: [String] = []) throws -> [String: Any] {
        let port = tls ? server.tlsPort! : server.cleartextPort!
        let result = try ProcessRunner.run(Fixtures.python, [Fixtures.path("Tests/Peers/badclient.py"), mode, "127.0.0.1",
                                                             String(port)] + extra)
        XCTAssertEqual(result.status, 0, result.stderr)
        return (try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]) ?? [:]
    }

    /// Waits until the server has let go of every connection (at most 20 s).
    private func assertNoConnectionsLeft(file: StaticString = #filePath, line: UInt = #line) async throws {
        var open = -1
        let released = await Poll.until { open = await server.openConnectionCount(); return open == 0 }
        if !released { XCTFail("\(open) connection(s) still open", file: file, line: line) }
    }

    /// Runs `attack` while a request is held in flight on another connection; once the attack is
    /// over the neighbour is released and must get its answer.
    private func whileNeighbourWaits(_ attack: () throws -> Void) async throws {
        let url = "\(tls)/slow"
        let neighbour = ServerTestFixture.inBackground { try ServerTestFixture.curl(["--http2", url]) }
        let inFlight = await Poll.until { neighbourGate.arrived == 1 }
        XCTAssertTrue(inFlight, "the neighbour's request never reached its handler")
        try attack()
        neighbourGate.open()
        let result = try await neighbour.value
        XCTAssertEqual(result.status, 200, result.stderr)
        XCTAssertEqual(result.bodyText, "slow")
    }

    func testGarbageBytesGet400AndCloseWithoutDisturbingOthers() async throws {
        try await whileNeighbourWaits {
            let report = try badClient("garbage")
            XCTAssertEqual(report["first_line"] as? String, "HTTP/1.1 400 Bad Request")
        }
        try await assertNoConnectionsLeft()
    }

    func testGarbageAfterTheHTTP2PrefaceGetsGoAway() async throws {
        try await whileNeighbourWaits {
            let report = try badClient("h2garbage")
            XCTAssertTrue((report["frame_types"] as? [Int] ?? []).contains(7), "\(report)")  // GOAWAY
            XCTAssertNotEqual(report["goaway_error"] as? Int, 0, "\(report)")
        }
        try await assertNoConnectionsLeft()
    }

    func testPlaintextOnTheTLSPortIsClosed() async throws {
        try await whileNeighbourWaits {
            let report = try badClient("tlsplain", tls: true)
            XCTAssertEqual(report["closed"] as? Bool, true)
        }
        try await assertNoConnectionsLeft()
    }

    func testTruncatedTLSHandshakeIsCleanedUp() async throws {
        try await whileNeighbourWaits {
            for _ in 0..<5 { _ = try badClient("tlshalf", tls: true) }
        }
        try await assertNoConnectionsLeft()
    }

    func testUntrustingClientFailsTheHandshakeAndTheServerCarriesOn() async throws {
        let refused = try ProcessRunner.run(ServerTestFixture.curlPath, ["-sS", "--http2", "\(tls)/health"])
        XCTAssertEqual(refused.status, 60, refused.stderr)  // curl: peer certificate cannot be authenticated
        XCTAssertEqual(try ServerTestFixture.curl(["--http2", "\(tls)/health"]).status, 200)
        try await assertNoConnectionsLeft()
    }

    func testOversizedHeadersGet431OnEveryProtocol() async throws {
        let big = "x-big: " + String(repeating: "a", count: 12_000)
        for (name, flags, base) in [("h2", ["--http2"], tls), ("h2c", ["--http2-prior-knowledge"], cleartext),
                                    ("HTTP/1.1", ["--http1.1"], cleartext), ("TLS HTTP/1.1", ["--http1.1"], tls)] {
            let result = try ServerTestFixture.curl(flags + ["-H", big, "\(base)/health"])
            XCTAssertEqual(result.status, 431, "\(name): \(result.stderr)")
            XCTAssertEqual(try ServerTestFixture.curl(flags + ["\(base)/health"]).status, 200, name)
        }
        try await assertNoConnectionsLeft()
    }

    func testBodyOverTheLimitGets413OnEveryProtocol() async throws {
        let file = try ServerTestFixture.temporaryFile(ServerTestFixture.patternBytes(200_000))
        let cases: [(String, [String], String)] = [
            ("h2", ["--http2"], tls), ("h2c", ["--http2-prior-knowledge"], cleartext),
            ("HTTP/1.1", ["--http1.1"], cleartext),
            ("HTTP/1.1 chunked", ["--http1.1", "-H", "Transfer-Encoding: chunked"], cleartext),
            ("HTTP/1.1 expect", ["--http1.1", "-H", "Expect: 100-continue"], cleartext),
        ]
        for (name, flags, base) in cases {
            let result = try ServerTestFixture.curl(flags + ["--data-binary", "@\(file)", "\(base)/echo"])
            XCTAssertEqual(result.status, 413, "\(name): \(result.stderr)")
        }
        // A body just under the limit still goes through.
        let fits = try ServerTestFixture.temporaryFile(ServerTestFixture.patternBytes(60_000))
        let ok = try ServerTestFixture.curl(["--http2", "--data-binary", "@\(fits)", "\(tls)/echo"])
        XCTAssertEqual(ok.status, 200)
        XCTAssertEqual(ok.body.count, 60_000)
        try await assertNoConnectionsLeft()
    }

    func testClientVanishingMidBodyLeavesNoConnectionBehind() async throws {
        try await whileNeighbourWaits {
            _ = try badClient("vanish1")
            _ = try badClient("vanish2")
            _ = try badClient("vanish1", tls: true, ["--tls", Fixtures.caFile])
            _ = try badClient("vanish2", tls: true, ["--tls", Fixtures.caFile])
        }
        try await assertNoConnectionsLeft()
        XCTAssertEqual(try ServerTestFixture.curl(["--http1.1", "\(cleartext)/health"]).status, 200)
    }
}

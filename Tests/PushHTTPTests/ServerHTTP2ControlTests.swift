import Foundation
import PushHTTP
import TestSupport
import XCTest

/// Connection-level HTTP/2 behaviour observed by an independent raw client (Python `h2`):
/// SETTINGS on a live connection, GOAWAY, the concurrent-stream limit, the idle timeout.
final class ServerHTTP2ControlTests: XCTestCase {
    private var server: HTTPServer!
    /// `/slow` answers once five requests are in it: the five streams the limit admits.
    private let five = Gate(opensAfter: 5)
    /// `/held` answers when the test opens it.
    private let held = Gate()

    override func setUp() async throws {
        var router = Router()
        router.add("GET", "/tighten") { request in
            request.connection.updateSettings(HTTP2Settings(maxConcurrentStreams: 7, initialWindowSize: 32_768))
            return .now(.text(200, "tightened"))
        }
        router.add("GET", "/goaway") { request in
            request.connection.goAway(errorCode: .noError, debugData: Array(#"{"reason":"Shutdown"}"#.utf8))
            return .now(.text(200, "bye"))
        }
        router.add("GET", "/slow") { [five] _ in
            .later {
                await five.pass()
                return .text(200, "slow")
            }
        }
        router.add("GET", "/held") { [held] _ in
            .later {
                await held.pass()
                return .text(200, "held")
            }
        }
        router.add("GET", "/health") { _ in .now(.text(200, "ok")) }
        server = try ServerTestFixture.start(router) { configuration in
            configuration.settings = HTTP2Settings(maxConcurrentStreams: 5)
            configuration.idleTimeout = .milliseconds(400)
        }
    }

    override func tearDown() async throws {
        five.open()
        held.open()
        await server.stop()
    }

    private func probe(_ arguments: [String]) throws -> [String: Any] {
        let result = try ServerTestFixture.h2probe([arguments[0], "127.0.0.1", String(server.cleartextPort!)] + arguments.dropFirst())
        XCTAssertEqual(result.status, 0, result.stderr)
        let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
        return try XCTUnwrap(object as? [String: Any], result.stdout)
    }

    func testServerPrefaceAdvertisesConfiguredSettings() throws {
        let report = try probe(["settings", "/tighten"])
        let settings = try XCTUnwrap(report["settings"] as? [[String: Int]])
        XCTAssertEqual(settings.first?["MAX_CONCURRENT_STREAMS"], 5)
        XCTAssertEqual(settings.first?["MAX_HEADER_LIST_SIZE"], 16_384)
    }

    func testHandlerChangesSettingsOnALiveConnection() throws {
        let report = try probe(["settings", "/tighten"])
        let settings = try XCTUnwrap(report["settings"] as? [[String: Int]])
        XCTAssertEqual(settings.count, 2, "\(report)")
        XCTAssertEqual(settings.last?["MAX_CONCURRENT_STREAMS"], 7)
        XCTAssertEqual(settings.last?["INITIAL_WINDOW_SIZE"], 32_768)
        XCTAssertEqual(report["responses"] as? [String: Int], ["1": 200])
    }

    func testGoAwayCarriesDebugDataLetsTheStreamFinishAndCloses() throws {
        let report = try probe(["goaway", "/goaway"])
        let goaway = try XCTUnwrap(report["goaway"] as? [String: Any], "\(report)")
        XCTAssertEqual(goaway["error"] as? String, "NO_ERROR")
        XCTAssertEqual(goaway["last_stream_id"] as? Int, 1)
        XCTAssertEqual(goaway["debug"] as? String, #"{"reason":"Shutdown"}"#)
        XCTAssertEqual(report["responses"] as? [String: Int], ["1": 200])
        XCTAssertEqual(report["closed"] as? Bool, true)
    }

    func testStreamsPastTheLimitAreRefusedAndTheRestAnswered() throws {
        // Streams opened before the client acknowledged our SETTINGS (RFC 9113 §5.1.2, §8.7).
        let report = try probe(["burst", "/slow", "10"])
        let responses = report["responses"] as? [String: Int] ?? [:]
        let resets = report["resets"] as? [String: String] ?? [:]
        XCTAssertEqual(responses.count, 5, "\(report)")
        XCTAssertTrue(responses.values.allSatisfy { $0 == 200 })
        XCTAssertEqual(resets.count, 5, "\(report)")
        XCTAssertTrue(resets.values.allSatisfy { $0 == "REFUSED_STREAM" }, "\(report)")
        XCTAssertNil(report["goaway"])
    }

    func testStreamsPastAnAcknowledgedLimitEndTheOffendingConnectionOnly() throws {
        // Once the client has acknowledged the limit, nghttp2 treats a stream past it as a
        // connection error (RFC 9113 §5.4.1 allows escalating the §5.1.2 stream error):
        // GOAWAY(PROTOCOL_ERROR). Every other connection keeps being served.
        let report = try probe(["burst", "/slow", "10", "--acked"])
        let goaway = try XCTUnwrap(report["goaway"] as? [String: Any], "\(report)")
        XCTAssertEqual(goaway["error"] as? String, "PROTOCOL_ERROR")
        XCTAssertTrue((goaway["debug"] as? String ?? "").contains("max concurrent streams exceeded"), "\(report)")
        let other = try ServerTestFixture.curl(["--http2-prior-knowledge", "http://127.0.0.1:\(server.cleartextPort!)/health"])
        XCTAssertEqual(other.status, 200)
    }

    func testIdleConnectionGetsGoAwayWithReasonThenCloses() async throws {
        let report = try probe(["idle", "1"])
        let goaway = try XCTUnwrap(report["goaway"] as? [String: Any], "\(report)")
        XCTAssertEqual(goaway["error"] as? String, "NO_ERROR")
        XCTAssertEqual(goaway["debug"] as? String, #"{"reason":"IdleTimeout"}"#)
        XCTAssertEqual(report["closed"] as? Bool, true)
        let open = await server.openConnectionCount()
        XCTAssertEqual(open, 0)
    }

    func testBusyConnectionIsNotIdle() async throws {
        // The first /held request stays in its handler past the 400 ms idle timeout. The event
        // that the timeout has come and gone for this connection: a connection opened after the
        // request (h2probe idle) is told IdleTimeout and closed. The server's one event loop
        // fires its timers in deadline order, and the busy connection was last active before
        // that connection opened, so its idle check ran first. It must still be open, and the
        // second request must reuse it. (TLS: curl 7.88 cannot reuse an h2c prior-knowledge
        // connection, against nghttpd either.)
        let base = "https://localhost:\(server.tlsPort!)"
        let curl = Task.detached {
            try ProcessRunner.run(ServerTestFixture.curlPath, ["-sS", "--http2", "--cacert", Fixtures.caFile, "-v",
                                                               "\(base)/held", "\(base)/held"])
        }
        let deadline = Date().addingTimeInterval(30)
        while held.arrived == 0 && Date() < deadline { try await Task.sleep(for: .milliseconds(5)) }
        XCTAssertEqual(held.arrived, 1, "the first request never reached its handler")
        let later = try probe(["idle", "1"])
        XCTAssertEqual((later["goaway"] as? [String: Any])?["debug"] as? String, #"{"reason":"IdleTimeout"}"#, "\(later)")
        XCTAssertEqual(later["closed"] as? Bool, true, "\(later)")
        let open = await server.openConnectionCount()
        XCTAssertEqual(open, 1, "a connection with a request in flight was closed as idle")
        held.open()
        let result = try await curl.value
        XCTAssertEqual(result.stdout, "heldheld", result.stderr)
        XCTAssertTrue(result.stderr.contains("Re-using existing connection"), result.stderr)
    }
}

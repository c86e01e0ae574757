import Foundation
import PushCore
import PushHTTP
import PushMetrics
import TestSupport
import XCTest

/// The collector on the real HTTPServer, driven by the real `curl` binary over TLS h2, h2c
/// (prior knowledge) and HTTP/1.1; rows read back from the SQLite file with `sqlite3`.
final class CollectorOverRealServerTests: XCTestCase {
    private var directory: URL!
    private var server: CollectorServer!
    private var databasePath: String { directory.appendingPathComponent("metrics.sqlite").path }

    override func setUp() async throws {
        directory = Fixtures.temporaryDirectory("collector-server")
    }

    override func tearDown() async throws {
        await server?.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    private func start(faultPlan: FaultPlan = .none) throws {
        let collector = try MetricsCollector(
            configuration: CollectorConfiguration(credentials: CollectorCredentials(cdpAPIKeys: ["k1"], legacyKeys: ["site-1": "api-1"]),
                                                  faultPlan: faultPlan),
            store: try MetricStore(path: databasePath))
        server = CollectorServer(collector: collector,
                                 configuration: HTTPServerConfiguration(tlsPort: 0, cleartextPort: 0, certificateFile: Fixtures.serverCert,
                                                                        privateKeyFile: Fixtures.serverKey))
        try server.start()
    }

    /// Runs curl; returns (exit status, HTTP status, HTTP version, body).
    private func curl(_ args: [String]) throws -> (Int32, Int, String, String) {
        let r = try ProcessRunner.run("/usr/bin/curl", ["-s", "--cacert", Fixtures.caFile, "-w", "\n%{http_code} %{http_version}",
                                                        "-H", "content-type: application/json; charset=utf-8", "--max-time", "10"] + args)
        let lines = r.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        let tail = lines.last.map { $0.split(separator: " ") } ?? []
        return (r.status, Int(tail.first ?? "") ?? 0, tail.count > 1 ? String(tail[1]) : "",
                lines.dropLast().joined(separator: "\n"))
    }

    private func rows(_ sql: String) throws -> [String] {
        server.collector.flush()
        return try ProcessRunner.run("/usr/bin/sqlite3", [databasePath, sql]).stdout.split(separator: "\n").map(String.init)
    }

    func testEveryRouteOverTLSH2H2cAndHTTP11() throws {
        try start()
        let tls = "https://localhost:\(server.tlsPort!)", h2c = "http://127.0.0.1:\(server.cleartextPort!)"
        let track = #"{"anonymousId":"del-a","event":"Report Delivery Event","properties":{"recipient":"tok-a","metric":"delivered","deliveryId":"del-a"}}"#
        let batch = #"{"batch":[{"type":"track","event":"Report Delivery Event","properties":{"metric":"opened","deliveryId":"del-a","recipient":"tok-a"},"anonymousId":"a","userId":"u","timestamp":"2026-04-02T10:46:08.123Z","messageId":"m"}],"sentAt":"2026-04-02T10:46:09.000Z","writeKey":"k1"}"#
        let legacy = #"{"delivery_id":"del-b","device_id":"tok-b","event":"delivered","timestamp":1775126768}"#

        let a = try curl(["--http2", "-u", "k1:", "-A", "Customer.io NSE Client/4.7.5", "--data-binary", track, "\(tls)/v1/track"])
        XCTAssertEqual(a.1, 200, a.3)
        XCTAssertEqual(a.2, "2")
        let b = try curl(["--http2-prior-knowledge", "--data-binary", batch, "\(h2c)/v1/b"])
        XCTAssertEqual(b.1, 200, b.3)
        XCTAssertEqual(b.2, "2")
        let c = try curl(["--http1.1", "-u", "site-1:api-1", "--data-binary", legacy, "\(h2c)/push/events"])
        XCTAssertEqual(c.1, 200, c.3)
        XCTAssertEqual(c.2, "1.1")
        let d = try curl(["--http1.1", "-u", "k1:", "--data-binary", track, "\(tls)/v1/track"])
        XCTAssertEqual(d.1, 200)
        XCTAssertTrue(d.3.contains(#""duplicates":1"#), d.3)

        XCTAssertEqual(try rows("SELECT route || ' ' || delivery_id || ' ' || metric || ' ' || duplicate FROM metrics ORDER BY id"),
                       ["/v1/track del-a delivered 0", "/v1/b del-a opened 0", "/push/events del-b delivered 0", "/v1/track del-a delivered 1"])
        XCTAssertEqual(try rows("SELECT http_version FROM metric_requests ORDER BY id"), ["HTTP/2", "HTTP/2", "HTTP/1.1", "HTTP/1.1"])
        XCTAssertEqual(try rows("SELECT user_agent FROM metrics WHERE id = 1"), ["Customer.io NSE Client/4.7.5"])
    }

    func testUnauthorizedAndBadBodyOverTheWire() throws {
        try start()
        let h2c = "http://127.0.0.1:\(server.cleartextPort!)"
        let none = try curl(["--http2-prior-knowledge", "--data-binary", "{}", "\(h2c)/v1/track"])
        XCTAssertEqual(none.1, 401)
        XCTAssertTrue(none.3.contains("missing_authorization"))
        let bad = try curl(["--http1.1", "-u", "k1:", "--data-binary", #"{"event":"Report Delivery Event"}"#, "\(h2c)/v1/track"])
        XCTAssertEqual(bad.1, 400)
        XCTAssertTrue(bad.3.contains(#""pointer":"/properties""#), bad.3)
        XCTAssertEqual(try rows("SELECT COUNT(*) FROM metrics"), ["0"])
    }

    func testDropFaultResetsTheH2StreamAndTheServerLivesOn() throws {
        try start(faultPlan: try FaultPlan.parse(flags: ["route=/v1/track,requests=1,drop=stream"]))
        let h2c = "http://127.0.0.1:\(server.cleartextPort!)"
        let track = #"{"anonymousId":"x","event":"Report Delivery Event","properties":{"recipient":"t","metric":"delivered","deliveryId":"x"}}"#
        let dropped = try curl(["--http2-prior-knowledge", "-u", "k1:", "--data-binary", track, "\(h2c)/v1/track"])
        XCTAssertNotEqual(dropped.0, 0, "curl must see the reset stream")
        XCTAssertEqual(dropped.1, 0)
        let next = try curl(["--http2-prior-knowledge", "-u", "k1:", "--data-binary", track, "\(h2c)/v1/track"])
        XCTAssertEqual(next.1, 200)
        XCTAssertEqual(try rows("SELECT status || ' ' || ifnull(error, '-') FROM metric_requests ORDER BY id"), ["0 fault:drop-stream", "200 -"])
    }

    func testHealthRoute() throws {
        try start()
        let r = try curl(["--http2", "https://localhost:\(server.tlsPort!)/health"])
        XCTAssertEqual(r.1, 200)
    }
}

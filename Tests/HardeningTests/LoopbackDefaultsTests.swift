import Foundation
import PushGateway
import TestSupport
import XCTest

/// The servers listen on loopback unless told otherwise, and the gateway's `/admin` routes
/// answer loopback peers only, even on `--host 0.0.0.0`. Checked over real connections from
/// this machine's own non-loopback address (its eth0 address), plus the address rule as a unit.
final class LoopbackDefaultsTests: XCTestCase {
    override func setUpWithError() throws {
        try Fixtures.requirePushlab()
    }

    private func externalIPv4() -> String? { NetworkAddresses.externalIPv4() }

    private func get(_ url: String) throws -> (status: Int, body: String, curlExit: Int32) {
        let r = try ProcessRunner.run("/usr/bin/curl", ["-s", "--max-time", "5", "-w", "\n%{http_code}", url])
        let status = Int(r.stdout.split(separator: "\n").last ?? "") ?? 0
        return (status, String(r.stdout.split(separator: "\n").dropLast().joined(separator: "\n")), r.status)
    }

    func testAdminAnswersOnlyLoopbackPeersEvenOnAllInterfaces() throws {
        let ip = try XCTUnwrap(externalIPv4(), "no non-loopback IPv4 address on this machine")
        let server = try ServerProcess(["serve", "--host", "0.0.0.0", "--port", "0", "--h2c-port", "0", "--apns-port", "0"]) { $0.contains("quick start") }
        defer { server.stop() }
        let port = try XCTUnwrap(server.port(after: "http://0.0.0.0:"), server.banner)
        let remote = try get("http://\(ip):\(port)/admin/devices")
        XCTAssertEqual(remote.status, 403, remote.body)
        XCTAssertTrue(remote.body.contains("loopback clients only") && remote.body.contains("\"fix\""), remote.body)
        XCTAssertEqual(try get("http://\(ip):\(port)/admin/pushes").status, 403)
        XCTAssertEqual(try get("http://\(ip):\(port)/health").status, 200, "other routes still answer the network")
        let local = try get("http://127.0.0.1:\(port)/admin/devices")
        XCTAssertEqual(local.status, 200, local.body)
    }

    func testServeAndCollectorListenOnLoopbackByDefault() throws {
        let ip = try XCTUnwrap(externalIPv4(), "no non-loopback IPv4 address on this machine")
        let serve = try ServerProcess(["serve", "--port", "0", "--h2c-port", "0", "--apns-port", "0"]) { $0.contains("quick start") }
        defer { serve.stop() }
        let dir = Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let collector = try ServerProcess(["collector", "--port", "off", "--h2c-port", "0", "--db", dir.appendingPathComponent("m.sqlite").path]) {
            $0.contains("storing metrics")
        }
        defer { collector.stop() }
        let servePort = try XCTUnwrap(serve.port(after: "http://127.0.0.1:"), serve.banner)
        let collectorPort = try XCTUnwrap(collector.port(after: "http://127.0.0.1:"), collector.banner)
        for port in [servePort, collectorPort] {
            XCTAssertNotEqual(try get("http://127.0.0.1:\(port)/health").status, 0, "reachable on loopback")
            let remote = try get("http://\(ip):\(port)/health")
            XCTAssertEqual(remote.status, 0, "port \(port) answered on \(ip)")
            XCTAssertEqual(remote.curlExit, 7, "connection refused on \(ip):\(port)")
        }
    }

    func testTheLoopbackRuleOnAddressesAsConnectionContextHasThem() {
        for address in ["127.0.0.1:5000", "127.8.9.10:1", "[::1]:443", "[::ffff:127.0.0.1]:80"] {
            XCTAssertTrue(AdminAccess.isLoopback(address), address)
        }
        for address in ["192.0.2.2:5000", "10.0.0.1:80", "[fd00::2]:443", "[::ffff:192.0.2.2]:80", "unknown", "127.0.0.1.evil:80", "1270.0.0.1:1"] {
            XCTAssertFalse(AdminAccess.isLoopback(address), address)
        }
    }
}

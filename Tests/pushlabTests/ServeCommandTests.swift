import Foundation
import TestSupport
import XCTest

/// `pushlab serve` as a real process: the gateway, the collector and /health behind its URLs.
final class ServeCommandTests: XCTestCase {
    func testServePrintsItsURLsAnswersAPNsAndTheCollectorAndStopsOnSIGINT() throws {
        let server = try ServerProcess(["serve", "--port", "0", "--h2c-port", "0", "--apns-port", "0",
                                        "--cert", Fixtures.serverCert, "--key", Fixtures.serverKey]) { $0.contains("quick start") }
        defer { server.stop() }
        let google = try XCTUnwrap(server.port(after: "https://127.0.0.1:"), server.banner)
        let apns = try XCTUnwrap(server.port(after: "APNs: https://127.0.0.1:"), server.banner)

        let health = try ProcessRunner.run("/usr/bin/curl", ["-s", "--cacert", Fixtures.caFile, "https://127.0.0.1:\(google)/health"])
        XCTAssertEqual(health.stdout, #"{"status":"ok"}"#)
        let apnsAnswer = try ProcessRunner.run("/usr/bin/curl", ["-s", "--http2", "--cacert", Fixtures.caFile, "-X", "POST",
                                                                 "-d", "{}", "https://127.0.0.1:\(apns)/3/device/nothex"])
        XCTAssertEqual(apnsAnswer.stdout, #"{"reason":"BadDeviceToken"}"#)
        let collector = try ProcessRunner.run("/usr/bin/curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "--cacert", Fixtures.caFile,
                                                                "-X", "POST", "-d", "{}", "https://127.0.0.1:\(google)/v1/track"])
        XCTAssertEqual(collector.stdout, "401", "the collector is mounted and wants its Basic authorization")

        server.stop()
        XCTAssertEqual(server.exitStatus, 0)
        XCTAssertFalse(server.exitedBySignal)
    }

    func testBadDevicesFileIsAUsageErrorNamingTheFile() throws {
        let dir = Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("devices.json")
        try Data(#"{"devices":[{"name":"x","bundleID":"io.a"}]}"#.utf8).write(to: file)
        let r = try ProcessRunner.pushlab(["serve", "--devices", file.path, "--port", "0", "--h2c-port", "0", "--apns-port", "0",
                                           "--cert", Fixtures.serverCert, "--key", Fixtures.serverKey])
        XCTAssertEqual(r.status, 2)
        XCTAssertTrue(r.stderr.contains(file.path), r.stderr)
        XCTAssertTrue(r.stderr.contains("apnsToken"), r.stderr)
    }
}

import Foundation
import TestSupport
import XCTest

/// `pushlab serve` as a real process: the gateway, the collector and /health behind its URLs.
final class ServeCommandTests: XCTestCase {
    func testServePrintsItsURLsAnswersAPNsAndTheCollectorAndStopsOnSIGINT() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Fixtures.pushlabBinary)
        process.arguments = ["serve", "--port", "0", "--h2c-port", "0", "--apns-port", "0",
                             "--cert", Fixtures.serverCert, "--key", Fixtures.serverKey]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = Pipe()
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        // Reads below block until output or EOF: a server that never prints must not hang the
        // suite, so a watchdog ends it (its pipe then reads EOF) after 30 s.
        DispatchQueue.global().asyncAfter(deadline: .now() + 30) { if process.isRunning { process.terminate() } }

        var text = ""
        let deadline = Date().addingTimeInterval(20)
        while !text.contains("quick start"), Date() < deadline {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        func port(_ prefix: String) -> String? {
            text.split(separator: "\n").first { $0.hasPrefix(prefix) }
                .flatMap { $0.dropFirst(prefix.count).prefix { $0.isNumber } }.map(String.init)
        }
        let google = try XCTUnwrap(port("https://127.0.0.1:"), text)
        let apns = try XCTUnwrap(port("APNs: https://127.0.0.1:"), text)

        let health = try ProcessRunner.run("/usr/bin/curl", ["-s", "--cacert", Fixtures.caFile, "https://127.0.0.1:\(google)/health"])
        XCTAssertEqual(health.stdout, #"{"status":"ok"}"#)
        let apnsAnswer = try ProcessRunner.run("/usr/bin/curl", ["-s", "--http2", "--cacert", Fixtures.caFile, "-X", "POST",
                                                                 "-d", "{}", "https://127.0.0.1:\(apns)/3/device/nothex"])
        XCTAssertEqual(apnsAnswer.stdout, #"{"reason":"BadDeviceToken"}"#)
        let collector = try ProcessRunner.run("/usr/bin/curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "--cacert", Fixtures.caFile,
                                                                "-X", "POST", "-d", "{}", "https://127.0.0.1:\(google)/v1/track"])
        XCTAssertEqual(collector.stdout, "401", "the collector is mounted and wants its Basic authorization")

        process.interrupt()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
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

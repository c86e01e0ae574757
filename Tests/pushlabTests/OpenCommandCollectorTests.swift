import Foundation
import TestSupport
import XCTest

/// `pushlab open --collector` against `pushlab collector`, both real processes: the opened
/// metric arrives through `/v1/b` and `pushlab report` counts it.
final class OpenCommandCollectorTests: XCTestCase {
    func testOpenedReachesTheCollectorAndTheReportCountsIt() throws {
        let dir = Fixtures.temporaryDirectory("open-collector")
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("m.sqlite").path
        let collector = Process()
        collector.executableURL = URL(fileURLWithPath: Fixtures.pushlabBinary)
        collector.arguments = ["collector", "--port", "off", "--h2c-port", "0", "--db", db, "--cdp-key", "pushlab-demo-cdp-key"]
        let out = Pipe()
        collector.standardOutput = out
        collector.standardError = FileHandle.nullDevice
        try collector.run()
        defer { if collector.isRunning { collector.terminate() } }
        let firstLine = readLine(out.fileHandleForReading)
        guard let url = firstLine.split(separator: " ").first, url.hasPrefix("http://") else {
            return XCTFail("collector printed no URL: \(firstLine)")
        }

        let r = try ProcessRunner.pushlab(["open", Fixtures.path("payloads/taps/app-scheme.json"),
                                           "--app", Fixtures.path("payloads/apps/demo.json"), "--cold",
                                           "--collector", String(url), "--json"])
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let metric = try XCTUnwrap(json["metric"] as? [String: Any])
        XCTAssertEqual(metric["sent"] as? Bool, true)
        XCTAssertEqual((metric["results"] as? [String])?.first?.hasPrefix("200"), true, "\(metric)")

        kill(collector.processIdentifier, SIGINT)
        collector.waitUntilExit()
        let report = try ProcessRunner.pushlab(["report", "--db", db, "--json"])
        XCTAssertEqual(report.status, 0, report.stderr)
        let totals = (try JSONSerialization.jsonObject(with: Data(report.stdout.utf8)) as? [String: Any])?["totals"] as? [String: Any]
        XCTAssertEqual(totals?["opened"] as? Int, 1, report.stdout)
    }

    func testAWrongKeyIsRejectedAndExitsOne() throws {
        let dir = Fixtures.temporaryDirectory("open-collector")
        defer { try? FileManager.default.removeItem(at: dir) }
        let collector = Process()
        collector.executableURL = URL(fileURLWithPath: Fixtures.pushlabBinary)
        collector.arguments = ["collector", "--port", "off", "--h2c-port", "0", "--db", dir.appendingPathComponent("m.sqlite").path,
                               "--cdp-key", "another-key"]
        let out = Pipe()
        collector.standardOutput = out
        collector.standardError = FileHandle.nullDevice
        try collector.run()
        defer { if collector.isRunning { collector.terminate() } }
        let url = readLine(out.fileHandleForReading).split(separator: " ").first.map(String.init) ?? ""
        let r = try ProcessRunner.pushlab(["open", Fixtures.path("payloads/taps/app-scheme.json"),
                                           "--app", Fixtures.path("payloads/apps/demo.json"), "--collector", url])
        XCTAssertEqual(r.status, 1, r.stdout + r.stderr)
        XCTAssertTrue(r.stdout.contains("401, kept for the next flush"), r.stdout)
    }

    /// One line from the collector's stdout (its first line is the URL).
    private func readLine(_ handle: FileHandle) -> String {
        var bytes: [UInt8] = []
        while true {
            let chunk = handle.readData(ofLength: 1)
            guard let b = chunk.first else { break }
            if b == UInt8(ascii: "\n") { break }
            bytes.append(b)
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

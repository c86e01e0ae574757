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
        let collector = try RunningPushlab(["collector", "--port", "off", "--h2c-port", "0", "--db", db, "--cdp-key", "pushlab-demo-cdp-key"])
        defer { collector.terminate() }
        let firstLine = collector.nextLine() ?? ""
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

        collector.interrupt()
        let report = try ProcessRunner.pushlab(["report", "--db", db, "--json"])
        XCTAssertEqual(report.status, 0, report.stderr)
        let totals = (try JSONSerialization.jsonObject(with: Data(report.stdout.utf8)) as? [String: Any])?["totals"] as? [String: Any]
        XCTAssertEqual(totals?["opened"] as? Int, 1, report.stdout)
    }

    func testAWrongKeyIsRejectedAndExitsOne() throws {
        let dir = Fixtures.temporaryDirectory("open-collector")
        defer { try? FileManager.default.removeItem(at: dir) }
        let collector = try RunningPushlab(["collector", "--port", "off", "--h2c-port", "0",
                                            "--db", dir.appendingPathComponent("m.sqlite").path, "--cdp-key", "another-key"])
        defer { collector.terminate() }
        let url = collector.nextLine()?.split(separator: " ").first.map(String.init) ?? ""
        let r = try ProcessRunner.pushlab(["open", Fixtures.path("payloads/taps/app-scheme.json"),
                                           "--app", Fixtures.path("payloads/apps/demo.json"), "--collector", url])
        XCTAssertEqual(r.status, 1, r.stdout + r.stderr)
        XCTAssertTrue(r.stdout.contains("401, kept for the next flush"), r.stdout)
    }
}

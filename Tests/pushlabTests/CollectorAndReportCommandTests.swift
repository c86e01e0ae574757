import Foundation
import TestSupport
import XCTest

/// `pushlab collector` and `pushlab report` as real processes: URLs printed, a live line per
/// metric with a shortened token, SIGINT commits and exits 0, the report reads the file.
final class CollectorAndReportCommandTests: XCTestCase {
    func testCollectorStoresWhatCurlSendsAndReportCountsIt() throws {
        let dir = Fixtures.temporaryDirectory("collector-cli")
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("m.sqlite").path
        let collector = try RunningPushlab(["collector", "--port", "off", "--h2c-port", "0", "--db", db, "--cdp-key", "k1"])
        defer { collector.terminate() }
        guard let urlLine = collector.nextLine(), let url = urlLine.split(separator: " ").first else { return XCTFail("no URL printed") }
        XCTAssertTrue(urlLine.hasPrefix("http://127.0.0.1:"), urlLine)

        let token = "3a4b5c6d7e8f90112233445566778899"
        let body = #"{"anonymousId":"cli-1","event":"Report Delivery Event","properties":{"recipient":"\#(token)","metric":"delivered","deliveryId":"cli-1"}}"#
        let r = try ProcessRunner.run("/usr/bin/curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "--http2-prior-knowledge",
                                                        "-u", "k1:", "--data-binary", body, "\(url)/v1/track"])
        XCTAssertEqual(r.stdout, "200")
        var live: String?
        while let line = collector.nextLine() {
            // The metric's line (the temporary path in the banner may contain "cli-1" too).
            if line.contains("/v1/track") && line.contains("cli-1") { live = line; break }
        }
        XCTAssertNotNil(live)
        XCTAssertTrue(live?.contains("token 3a4b5c6d…") ?? false, live ?? "")
        XCTAssertFalse(live?.contains(token) ?? true, "tokens are never printed whole")
        XCTAssertEqual(collector.interrupt(), 0)

        let report = try ProcessRunner.pushlab(["report", "--db", db, "--json"])
        XCTAssertEqual(report.status, 0, report.stderr)
        let json = try JSONSerialization.jsonObject(with: Data(report.stdout.utf8)) as? [String: Any]
        let totals = json?["totals"] as? [String: Any]
        XCTAssertEqual(totals?["delivered"] as? Int, 1)
        XCTAssertEqual(totals?["deliveredLive"] as? Int, 1)
        let text = try ProcessRunner.pushlab(["report", "--db", db])
        XCTAssertTrue(text.stdout.contains("| cli-1 "), text.stdout)
    }

    func testJSONLinesForListeningMetricRejectionAndStop() throws {
        let dir = Fixtures.temporaryDirectory("collector-cli")
        defer { try? FileManager.default.removeItem(at: dir) }
        let collector = try RunningPushlab(["collector", "--port", "off", "--h2c-port", "0",
                                            "--db", dir.appendingPathComponent("m.sqlite").path, "--json"])
        defer { collector.terminate() }
        func object(_ line: String?) -> [String: Any] {
            (line.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) } as? [String: Any]) ?? [:]
        }
        let listening = object(collector.nextLine())
        XCTAssertEqual(listening["event"] as? String, "listening")
        guard let url = listening["cleartext"] as? String else { return XCTFail("no cleartext URL") }
        let body = #"{"anonymousId":"j1","event":"Report Delivery Event","properties":{"recipient":"abcdef0123456789","metric":"delivered","deliveryId":"j1"}}"#
        for auth in [["-u", "k:"], []] {
            _ = try ProcessRunner.run("/usr/bin/curl", ["-s", "-o", "/dev/null", "--http2-prior-knowledge"] + auth + ["--data-binary", body, "\(url)/v1/track"])
        }
        let metric = object(collector.nextLine()), rejected = object(collector.nextLine())
        XCTAssertEqual(metric["event"] as? String, "metric")
        XCTAssertEqual(metric["deliveryId"] as? String, "j1")
        XCTAssertEqual(metric["token"] as? String, "abcdef01…")
        XCTAssertEqual(rejected["event"] as? String, "rejected")
        XCTAssertEqual(rejected["status"] as? Int, 401)
        kill(collector.process.processIdentifier, SIGINT)
        let stopped = object(collector.nextLine())
        collector.process.waitUntilExit()
        XCTAssertEqual(stopped["event"] as? String, "stopped")
        XCTAssertEqual(stopped["metrics"] as? Int, 1)
        XCTAssertEqual(stopped["rejected"] as? Int, 1)
    }

    func testBadFaultFlagIsAUsageErrorNamingTheField() throws {
        let r = try ProcessRunner.pushlab(["collector", "--port", "off", "--h2c-port", "0", "--fault", "route=/v1/track,status=abc"])
        XCTAssertEqual(r.status, 2)
        XCTAssertTrue(r.stderr.contains("field 'status' has 'abc'"), r.stderr)
        XCTAssertTrue(r.stderr.contains("fix: e.g. status=503"), r.stderr)
    }

    func testReportOnAMissingFileIsAUsageError() throws {
        let r = try ProcessRunner.pushlab(["report", "--db", "/nonexistent/metrics.sqlite"])
        XCTAssertEqual(r.status, 2)
        XCTAssertTrue(r.stderr.contains("--db /nonexistent/metrics.sqlite: no such file"), r.stderr)
    }
}

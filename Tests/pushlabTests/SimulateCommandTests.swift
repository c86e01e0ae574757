import Foundation
import TestSupport
import XCTest

/// `pushlab simulate --platform` as a real process (issue 21 "Recovery experiment").
final class SimulateCommandTests: XCTestCase {
    private let small = ["simulate", "--pushes", "12", "--seed", "3", "--kill-rate", "0.4", "--kill-stage", "mixed"]

    func testCompareOnBothPlatformsPrintsIOSAndAndroidSideBySidePerFault() throws {
        let r = try ProcessRunner.pushlab(small + ["--platform", "both", "--compare"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("| store | sent | accepted | extension ran |"), "the iPhone's table")
        XCTAssertTrue(r.stdout.contains("| store (Android SDK) |"), "the Android table")
        XCTAssertTrue(r.stdout.contains("| store (iOS / Android) | fault | pushes | iOS lost | iOS recovered | iOS duplicates | Android lost | Android recovered | Android duplicates |"), r.stdout)
        for store in ["off / cio-android-legacy", "cio / cio-android", "sqlite / improved"] {
            XCTAssertTrue(r.stdout.contains("| \(store) | **all** | 12 |"), "\(store) totals in:\n\(r.stdout)")
            XCTAssertTrue(r.stdout.contains("| \(store) | killed before send |"), "\(store) before-send row in:\n\(r.stdout)")
        }
    }

    func testJSONHoldsBothPlatformsWithTheirFaultRows() throws {
        let r = try ProcessRunner.pushlab(small + ["--platform", "both", "--app-group", "cio", "--json"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let root = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let results = try XCTUnwrap(root["results"] as? [[String: Any]])
        XCTAssertEqual(results.count, 2)
        XCTAssertNil(results[0]["platform"], "the iPhone's result keeps its shape")
        XCTAssertEqual(results[1]["platform"] as? String, "android")
        XCTAssertNotNil(results[1]["android"] as? [String: Any])
        for result in results {
            let rows = try XCTUnwrap(result["byFault"] as? [[String: Any]])
            XCTAssertEqual(rows.map { $0["pushes"] as? Int ?? 0 }.reduce(0, +), 12)
        }
    }

    func testIOSOutputHasNoAndroidParts() throws {
        let r = try ProcessRunner.pushlab(small + ["--json"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertFalse(r.stdout.contains("byFault"))
        XCTAssertFalse(r.stdout.contains("android"))
    }

    func testBadPlatformNamesTheFlag() throws {
        let r = try ProcessRunner.pushlab(["simulate", "--platform", "windows"])
        XCTAssertEqual(r.status, 2)
        XCTAssertTrue(r.stderr.contains("--platform must be ios, android or both, got 'windows'"), r.stderr)
    }

    func testChartOnBothPlatformsDrawsASeriesPerPlatformAndStore() throws {
        let dir = Fixtures.temporaryDirectory("simulate-chart")
        defer { try? FileManager.default.removeItem(at: dir) }
        let svg = dir.appendingPathComponent("chart.svg").path
        let r = try ProcessRunner.pushlab(["simulate", "--platform", "both", "--app-group", "cio", "--pushes", "8",
                                           "--chart", svg, "--json"], timeout: 300)
        XCTAssertEqual(r.status, 0, r.stderr)
        let chart = try XCTUnwrap((try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])?["chart"] as? [String: Any])
        XCTAssertEqual(Set(chart.keys), ["iOS cio", "Android cio-android"])
        // The SDK's pending store loses every before-send kill on Android: recovery 0 at each rate.
        let android = try XCTUnwrap(chart["Android cio-android"] as? [[String: Any]])
        XCTAssertFalse(android.isEmpty)
        XCTAssertTrue(android.allSatisfy { ($0["recoveryRatio"] as? Double) == 0 }, "\(android)")
        let text = try String(contentsOfFile: svg, encoding: .utf8)
        XCTAssertTrue(text.contains("Android cio-android") && text.contains("iOS cio"))
    }
}

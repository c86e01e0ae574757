import Foundation
import TestSupport
import XCTest

/// Every `--json` output is clean for scripts (issue 23 item 4): durations are numbers with the
/// unit in the key (`budgetMs`, `latency_ms`), dates are ISO 8601 strings. Swift's own encodings
/// must not leak: a `Duration` encodes as `[high, low]` attoseconds and a `ClosedRange<Int>` as
/// `[lower, upper]`, so any two-integer array is refused, and so is a number under a date key.
final class JSONOutputShapeTests: XCTestCase {
    /// The places in `json` where a Swift encoding or a numeric date hides.
    static func problems(in json: Any, at path: String = "") -> [String] {
        if let array = json as? [Any] {
            var found: [String] = []
            if array.count == 2, array.allSatisfy(isInteger) {
                found.append("\(path): a two-integer array \(array) (a Duration or a range?)")
            }
            for (i, v) in array.enumerated() { found += problems(in: v, at: "\(path)/\(i)") }
            return found
        }
        if let object = json as? [String: Any] {
            var found: [String] = []
            for (key, value) in object.sorted(by: { $0.key < $1.key }) {
                if value is NSNumber, !isBool(value), looksLikeDate(key) {
                    found.append("\(path)/\(key): a date as a number (\(value)); use ISO 8601, or put the unit in the key")
                }
                found += problems(in: value, at: "\(path)/\(key)")
            }
            return found
        }
        return []
    }

    static func isBool(_ v: Any) -> Bool {
        // JSONSerialization makes true/false NSNumbers of type "c" (char); numbers are "q" or "d".
        guard let n = v as? NSNumber else { return false }
        return String(cString: n.objCType) == "c"
    }

    static func isInteger(_ v: Any) -> Bool {
        guard let n = v as? NSNumber, !isBool(n) else { return false }
        return n.doubleValue.rounded() == n.doubleValue
    }

    /// `sentAt`, `sent_at`, `timestamp`, `expiresDate` … but not `deliveredAtMs` (a unit).
    static func looksLikeDate(_ key: String) -> Bool {
        let lower = key.lowercased()
        if ["ms", "seconds", "_s", "sec", "us", "ns"].contains(where: { lower.hasSuffix($0) }) { return false }
        return key.hasSuffix("At") || lower.hasSuffix("_at") || lower.hasSuffix("date") || lower.hasSuffix("timestamp") || lower == "time"
    }

    /// `statuses`: the exit statuses the command may end with (the device commands exit 1 when
    /// their metric cannot reach a collector; their JSON is printed all the same).
    private func assertClean(_ arguments: [String], stdin: String? = nil, statuses: Set<Int32> = [0],
                             file: StaticString = #filePath, line: UInt = #line) throws {
        let r = try ProcessRunner.pushlab(arguments, stdin: stdin)
        XCTAssertTrue(statuses.contains(r.status), "exit \(r.status): pushlab \(arguments.joined(separator: " ")): \(r.stderr)", file: file, line: line)
        let json = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8), options: [.fragmentsAllowed])
        XCTAssertEqual(Self.problems(in: json), [], "pushlab \(arguments.joined(separator: " "))", file: file, line: line)
    }

    func testTheWalkerRefusesSwiftEncodingsAndNumericDates() throws {
        let duration = try JSONSerialization.jsonObject(with: Data(#"{"p": {"budget": [1, 11553255926290448384]}}"#.utf8))
        XCTAssertEqual(Self.problems(in: duration).count, 1)
        let range = try JSONSerialization.jsonObject(with: Data(#"{"outages": [[5, 10]]}"#.utf8))
        XCTAssertEqual(Self.problems(in: range).count, 1)
        let date = try JSONSerialization.jsonObject(with: Data(#"{"sentAt": 786000000.5, "timestamp": 1700000000000}"#.utf8))
        XCTAssertEqual(Self.problems(in: date).count, 2)
        let clean = try JSONSerialization.jsonObject(with: Data(#"{"budgetMs": 30000, "sent_at": "2026-12-01T15:00:00Z", "deliveredAtMs": 14, "flags": [true, false], "xy": [1.5, 2]}"#.utf8))
        XCTAssertEqual(Self.problems(in: clean), [])
    }

    func testSimulateJSONHasTheBudgetInMillisecondsAndOutagesAsObjects() throws {
        let args = ["simulate", "--pushes", "8", "--seed", "3", "--kill-rate", "0.3", "--outage", "2-3", "--json"]
        try assertClean(args)
        let r = try ProcessRunner.pushlab(args)
        let root = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let parameters = try XCTUnwrap(((root["results"] as? [[String: Any]])?.first)?["parameters"] as? [String: Any])
        XCTAssertEqual(parameters["budgetMs"] as? Double, 30_000)
        XCTAssertNil(parameters["budget"])
        let outages = try XCTUnwrap(parameters["outages"] as? [[String: Int]])
        XCTAssertEqual(outages, [["fromPush": 2, "toPush": 3]])
        try assertClean(["simulate", "--pushes", "6", "--seed", "2", "--platform", "both", "--compare", "--json"])
    }

    func testDeviceAndValidationCommandsPrintCleanJSON() throws {
        try assertClean(["nse", Fixtures.path("payloads/apns/basic-alert.json"), "--json"])
        try assertClean(["open", Fixtures.path("payloads/apns/rich-push.json"), "--app", Fixtures.path("payloads/apps/demo.json"), "--json"], statuses: [0, 1])
        try assertClean(["validate", Fixtures.path("payloads/apns/rich-push.json"), Fixtures.path("payloads/fcm/fid.json"), "--json"])
        try assertClean(["validate", Fixtures.path("payloads/invalid/fcm.fid.shape.json"), "--json"], statuses: [1])
        let dir = Fixtures.temporaryDirectory("json-shape-android")
        defer { try? FileManager.default.removeItem(at: dir) }
        try assertClean(["android", "receive", Fixtures.path("payloads/fcm/android-data-push.json"), "--files-dir", dir.path, "--json"], statuses: [0, 1])
        try assertClean(["android", "launch", "--files-dir", dir.path, "--json"], statuses: [0, 1])
        try assertClean(["android", "open", Fixtures.path("payloads/fcm/android-data-push.json"), "--json"], statuses: [0, 1])
        let group = Fixtures.temporaryDirectory("json-shape-app-group")
        defer { try? FileManager.default.removeItem(at: group) }
        XCTAssertEqual(try ProcessRunner.pushlab(["app", "store", "--container", group.path, "--append", "2"]).status, 0)
        try assertClean(["app", "store", "--container", group.path, "--json"])
        try assertClean(["app", "launch", "--container", group.path, "--json"], statuses: [0, 1])
        try assertClean(["doctor", "--service-account", Fixtures.fcmServiceAccount, "--json"], statuses: [0, 1])
        let activities = ["start.json", "update.json", "end.json"].map { Fixtures.path("payloads/live-activities/" + $0) }
        try assertClean(["activity", "run"] + activities + ["--json"])
    }

    func testDemoAndSendHistoryPrintCleanJSON() throws {
        try assertClean(["demo", "--json"])
        let dir = Fixtures.temporaryDirectory("json-shape-send")
        defer { try? FileManager.default.removeItem(at: dir) }
        let gateway = try ServerProcess(["serve", "--port", "0", "--h2c-port", "0", "--apns-port", "0"]) {
            $0.contains("quick start") || $0.contains("device(s)")
        }
        defer { gateway.stop() }
        let port = try XCTUnwrap(gateway.port(after: "https://127.0.0.1:"), gateway.banner)
        let history = dir.appendingPathComponent("history.sqlite").path
        try assertClean(["send", "fcm", "--url", "https://127.0.0.1:\(port)", "--ca-file", Fixtures.caFile, "--service-account", Fixtures.fcmServiceAccount,
                         "--history", history, "--fid", "dQw4w9WgXcQpZ7k3mB2x_A", "--title", "Hi", "--json"])
        try assertClean(["history", "--history", history, "--json"])
    }
}

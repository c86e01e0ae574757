import Foundation
import TestSupport
import XCTest

/// `pushlab open`, run as a real process (docs/deep-links.md).
final class OpenCommandTests: XCTestCase {
    let cases = Fixtures.path("payloads/taps/cases.json")
    let universal = Fixtures.path("payloads/taps/universal-link.json")
    let demo = Fixtures.path("payloads/apps/demo.json")
    let legacy = Fixtures.path("payloads/apps/legacy.json")

    func testCaseTableReplaysAsAMatrixAndEveryExpectationHolds() throws {
        let r = try ProcessRunner.pushlab(["open", "--cases", cases])
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        XCTAssertTrue(r.stdout.contains("#   profile"), r.stdout)
        XCTAssertTrue(r.stdout.range(of: #"\d+ cases, (\d+) as expected, 0 not"#, options: .regularExpression) != nil, r.stdout)
    }

    func testCaseTableAsJSON() throws {
        let r = try ProcessRunner.pushlab(["open", "--cases", cases, "--json"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let rows = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]])
        XCTAssertGreaterThanOrEqual(rows.count, 40)
        XCTAssertTrue(rows.allSatisfy { $0["passed"] as? Bool == true })
        let first = try XCTUnwrap(rows.first?["outcome"] as? [String: Any])
        XCTAssertNotNil(first["destination"] as? [String: Any])
        XCTAssertNotNil(first["diagnostics"] as? [Any])
    }

    func testAFailingExpectationIsReportedAndExitsOne() throws {
        let dir = Fixtures.temporaryDirectory("open")
        defer { try? FileManager.default.removeItem(at: dir) }
        let table = """
        {"app": {"bundleId": "io.pushlab.demo", "extensionBundleId": "io.pushlab.demo.richpush", "cdpApiKey": "k"},
         "profiles": {"bare": {}},
         "cases": [{"name": "wrong on purpose", "profile": "bare", "link": "pushlab://x", "state": "warm",
                    "expect": {"tier": 1, "destination": "app-route", "metric": "opened"}}]}
        """
        let path = dir.appendingPathComponent("cases.json").path
        try table.write(toFile: path, atomically: true, encoding: .utf8)
        let r = try ProcessRunner.pushlab(["open", "--cases", path])
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stdout.contains("case 1 'wrong on purpose': tier: expected 1, got 3"), r.stdout)
    }

    func testSingleTapReportsTierDestinationMetricAndTheRequestItWouldSend() throws {
        let r = try ProcessRunner.pushlab(["open", universal, "--app", demo, "--cold", "--no-metrics", "--json"])
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let outcome = try XCTUnwrap(json["outcome"] as? [String: Any])
        XCTAssertEqual(outcome["tier"] as? Int, 2)
        XCTAssertEqual((outcome["destination"] as? [String: Any])?["kind"] as? String, "app-route")
        XCTAssertEqual(outcome["metric"] as? String, "opened")
        XCTAssertEqual(outcome["completionHandlerCalls"] as? Int, 1)
        let metric = try XCTUnwrap(json["metric"] as? [String: Any])
        XCTAssertEqual(metric["sent"] as? Bool, false)
        let request = try XCTUnwrap((metric["requests"] as? [[String: Any]])?.first)
        XCTAssertEqual(request["url"] as? String, "https://localhost:8443/v1/b")
        XCTAssertFalse(r.stdout.contains(Data("pushlab-demo-cdp-key:".utf8).base64EncodedString()), "the auth header must be redacted")
    }

    func testAdoptingUISceneShowsThePitfallWithItsFixAndExitsOne() throws {
        let r = try ProcessRunner.pushlab(["open", universal, "--app", legacy, "--scene", "--no-metrics"])
        XCTAssertEqual(r.status, 1, r.stdout + r.stderr)
        XCTAssertTrue(r.stdout.contains("destination:  the browser"), r.stdout)
        XCTAssertTrue(r.stdout.contains("[scene-app-without-callback]"), r.stdout)
        XCTAssertTrue(r.stdout.contains("fix: register a deep-link callback"), r.stdout)
    }

    func testDismissReportsNoOpened() throws {
        let r = try ProcessRunner.pushlab(["open", universal, "--app", demo, "--action", "dismiss", "--no-metrics", "--json"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let outcome = try XCTUnwrap((JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])?["outcome"] as? [String: Any])
        XCTAssertEqual(outcome["metric"] as? String, "none")
        XCTAssertEqual(outcome["action"] as? String, "dismiss")
    }

    func testTheNSEImageIsDeletedAfterADefaultTapButNotAfterADismissal() throws {
        let dir = Fixtures.temporaryDirectory("open")
        defer { try? FileManager.default.removeItem(at: dir) }
        let image = dir.appendingPathComponent("cio_sdk").appendingPathComponent("\(UUID().uuidString)_kettle.png")
        try FileManager.default.createDirectory(at: image.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data([0x89, 0x50, 0x4E, 0x47]).write(to: image)

        let dismissed = try ProcessRunner.pushlab(["open", universal, "--app", demo, "--action", "dismiss", "--no-metrics",
                                                   "--attachment", image.path])
        XCTAssertEqual(dismissed.status, 0, dismissed.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: image.path))

        let tapped = try ProcessRunner.pushlab(["open", universal, "--app", demo, "--no-metrics", "--attachment", image.path])
        XCTAssertEqual(tapped.status, 0, tapped.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: image.path))
        XCTAssertTrue(tapped.stdout.contains("images:       deleted \(image.path)"), tapped.stdout)
    }

    func testAnFCMMessageIsTappedAsTheAPNsPayloadIOSReceives() throws {
        let dir = Fixtures.temporaryDirectory("open")
        defer { try? FileManager.default.removeItem(at: dir) }
        let fcm = dir.appendingPathComponent("fcm.json").path
        try #"{"message": {"token": "t", "apns": {"payload": {"aps": {"alert": "x"}, "CIO": {"push": {"link": "pushlab://orders/1"}}, "CIO-Delivery-ID": "d", "CIO-Delivery-Token": "k"}}}}"#
            .write(toFile: fcm, atomically: true, encoding: .utf8)
        let r = try ProcessRunner.pushlab(["open", fcm, "--app", demo, "--no-metrics", "--json"])
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        let outcome = try XCTUnwrap((JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])?["outcome"] as? [String: Any])
        XCTAssertEqual(outcome["tier"] as? Int, 1)
        XCTAssertEqual(outcome["link"] as? String, "pushlab://orders/1")

        let bare = dir.appendingPathComponent("fcm-bare.json").path
        try #"{"message": {"token": "t", "notification": {"title": "x"}}}"#.write(toFile: bare, atomically: true, encoding: .utf8)
        let missing = try ProcessRunner.pushlab(["open", bare, "--app", demo])
        XCTAssertEqual(missing.status, 2)
        XCTAssertTrue(missing.stderr.contains("/message/apns/payload is missing"), missing.stderr)
    }

    func testBadInputIsAUsageErrorNamingTheFileOrFlag() throws {
        let dir = Fixtures.temporaryDirectory("open")
        defer { try? FileManager.default.removeItem(at: dir) }
        let bad = dir.appendingPathComponent("bad.json").path
        try #"{"aps": {"alert": "x",}}"#.write(toFile: bad, atomically: true, encoding: .utf8)

        let missingApp = try ProcessRunner.pushlab(["open", universal])
        XCTAssertEqual(missingApp.status, 2)
        XCTAssertTrue(missingApp.stderr.contains("missing --app"), missingApp.stderr)

        let badPayload = try ProcessRunner.pushlab(["open", bad, "--app", demo])
        XCTAssertEqual(badPayload.status, 2)
        XCTAssertTrue(badPayload.stderr.contains("\(bad):1:"), badPayload.stderr)

        let twoStates = try ProcessRunner.pushlab(["open", universal, "--app", demo, "--cold", "--warm"])
        XCTAssertEqual(twoStates.status, 2)
        XCTAssertTrue(twoStates.stderr.contains("--cold, --warm, --foreground"), twoStates.stderr)
    }
}

import Foundation
import TestSupport
import XCTest

/// `pushlab android receive|open|launch` as real processes (issue 21): exit codes 0/1/2, the
/// `--json` shape, errors naming the flag or the JSON pointer, and the delivered metric's way
/// to a real `pushlab collector` through the pending store file and the hand-off.
final class AndroidCommandTests: XCTestCase {
    private let app = ["--app", "payloads/apps/android-demo.json"]
    private let dataPush = "payloads/fcm/android-data-push.json"

    private func json(_ text: String) throws -> [String: Any] {
        try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], text)
    }

    private func write(_ text: String, _ name: String) -> String {
        let dir = Fixtures.temporaryDirectory("android-cli")
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent(name).path
        _ = FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
        return path
    }

    // MARK: receive

    func testReceiveShowsADataMessageAndExitsZero() throws {
        let r = try ProcessRunner.pushlab(["android", "receive", dataPush] + app)
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        XCTAssertTrue(r.stdout.contains("notify(): shown on channel 'io.pushlab.shop'"), r.stdout)
        XCTAssertTrue(r.stdout.contains("Your order shipped"), r.stdout)
    }

    func testReceiveJSONShape() throws {
        let r = try ProcessRunner.pushlab(["android", "receive", dataPush, "--json"] + app)
        XCTAssertEqual(r.status, 0, r.stderr)
        let report = try json(r.stdout)
        XCTAssertEqual(report["messageType"] as? String, "data")
        XCTAssertEqual(report["handledBy"] as? String, "customer.io")
        XCTAssertEqual(report["deliveredTracked"] as? Bool, true)
        let notification = try XCTUnwrap(report["notification"] as? [String: Any])
        XCTAssertEqual(notification["title"] as? String, "Your order shipped")
        XCTAssertEqual(notification["channelID"] as? String, "io.pushlab.shop")
        XCTAssertNotNil(report["timeline"] as? [[String: Any]])
        XCTAssertEqual((report["metric"] as? [String: Any])?["fate"] as? String, "pending", "no metrics host: stopped where the SDK stored it")
    }

    func testReceiveExitsOneWhenNothingIsShown() throws {
        let notificationOnly = write(#"{"message":{"notification":{"title":"Hi","body":"there"}}}"#, "notification.json")
        let r = try ProcessRunner.pushlab(["android", "receive", notificationOnly, "--state", "foreground", "--json"] + app)
        XCTAssertEqual(r.status, 1, r.stdout + r.stderr)
        let report = try json(r.stdout)
        XCTAssertNil(report["notification"])
        let codes = (report["diagnostics"] as? [[String: Any]] ?? []).compactMap { $0["code"] as? String }
        XCTAssertTrue(codes.contains("foreground-notification-not-drawn"), "\(codes)")
    }

    func testReceiveBadFlagValueNamesTheFlag() throws {
        let r = try ProcessRunner.pushlab(["android", "receive", dataPush, "--state", "sideways"])
        XCTAssertEqual(r.status, 2)
        XCTAssertTrue(r.stderr.contains("--state must be one of foreground, background, killed; got 'sideways'"), r.stderr)
    }

    func testReceiveUnknownFlagSuggestsTheNearestOne() throws {
        let r = try ProcessRunner.pushlab(["android", "receive", dataPush, "--kill-att", "5"])
        XCTAssertEqual(r.status, 2)
        XCTAssertTrue(r.stderr.contains("unknown option --kill-att"), r.stderr)
        XCTAssertTrue(r.stderr.contains("Did you mean --kill-at?"), r.stderr)
    }

    func testReceiveBadPayloadNamesTheJSONPointer() throws {
        let bad = write(#"{"message":{"data":{"title":"x","badge":3}}}"#, "bad.json")
        let r = try ProcessRunner.pushlab(["android", "receive", bad])
        XCTAssertEqual(r.status, 2)
        XCTAssertTrue(r.stderr.contains("\(bad): /message/data/badge: FCM data values must be strings, got number"), r.stderr)
        let priority = write(#"{"message":{"data":{"title":"x"},"android":{"priority":"urgent"}}}"#, "priority.json")
        let p = try ProcessRunner.pushlab(["android", "receive", priority])
        XCTAssertEqual(p.status, 2)
        XCTAssertTrue(p.stderr.contains("/message/android/priority: must be \"high\" or \"normal\""), p.stderr)
    }

    func testReceiveUnreadableAppProfileNamesTheFlag() throws {
        let r = try ProcessRunner.pushlab(["android", "receive", dataPush, "--app", "/nonexistent/android.json"])
        XCTAssertEqual(r.status, 2)
        XCTAssertTrue(r.stderr.contains("--app"), r.stderr)
    }

    // MARK: open

    func testOpenRoutesTheLinkToTheAppsActivity() throws {
        let r = try ProcessRunner.pushlab(["android", "open", dataPush, "--json"] + app)
        XCTAssertEqual(r.status, 0, r.stderr)
        let outcome = try json(r.stdout)
        XCTAssertEqual(outcome["route"] as? String, "host-app")
        XCTAssertEqual(outcome["target"] as? String, "OrderActivity")
        XCTAssertEqual(outcome["openedMetrics"] as? Int, 1)
        XCTAssertNotNil(outcome["stack"] as? [String])
    }

    func testOpenBadFlagValuesNameTheFlag() throws {
        let drawn = try ProcessRunner.pushlab(["android", "open", "--link", "pushlab://orders/1", "--drawn-by", "me"] + app)
        XCTAssertEqual(drawn.status, 2)
        XCTAssertTrue(drawn.stderr.contains("--drawn-by must be customer.io-sdk or fcm-sdk, got 'me'"), drawn.stderr)
        let stack = try ProcessRunner.pushlab(["android", "open", "--link", "pushlab://orders/1", "--stack", "MainActivity,NopeActivity"] + app)
        XCTAssertEqual(stack.status, 2)
        XCTAssertTrue(stack.stderr.contains("'NopeActivity' is not an activity of io.pushlab.shop"), stack.stderr)
    }

    /// `--help` names payloads/apps/android-demo.json as the default: without --app the phone is
    /// that app (its ProductActivity opens pushlab://products/…), not a second built-in one.
    func testTheDefaultAppIsTheSampleProfileTheHelpNames() throws {
        let help = try ProcessRunner.pushlab(["android", "open", "--help"])
        XCTAssertEqual(help.status, 0, help.stderr)
        XCTAssertTrue(help.stdout.contains("payloads/apps/android-demo.json"), help.stdout)
        let bare = try ProcessRunner.pushlab(["android", "open", "--link", "pushlab://products/42", "--json"])
        let given = try ProcessRunner.pushlab(["android", "open", "--link", "pushlab://products/42", "--json"] + app)
        XCTAssertEqual(bare.status, 0, bare.stdout + bare.stderr)
        XCTAssertEqual(given.status, 0, given.stdout + given.stderr)
        XCTAssertEqual(try json(bare.stdout)["target"] as? String, "ProductActivity", bare.stdout)
        XCTAssertEqual(try json(bare.stdout)["target"] as? String, try json(given.stdout)["target"] as? String)
        XCTAssertEqual(try json(bare.stdout)["route"] as? String, try json(given.stdout)["route"] as? String)
    }

    func testAMissingCaseTableNamesCasesNotApp() throws {
        let r = try ProcessRunner.pushlab(["android", "open", "--cases", "no-such-cases.json"])
        XCTAssertEqual(r.status, 2)
        XCTAssertTrue(r.stderr.contains("--cases no-such-cases.json: cannot read the tap case table"), r.stderr)
        XCTAssertFalse(r.stderr.contains("--app"), r.stderr)
    }

    func testOpenCaseTableRunsAndExitsZero() throws {
        let r = try ProcessRunner.pushlab(["android", "open", "--cases", "payloads/taps/android-cases.json"])
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        XCTAssertTrue(r.stdout.range(of: #"(\d+) of \1 cases as expected"#, options: .regularExpression) != nil, r.stdout)
    }

    // MARK: launch

    func testLaunchWithoutFilesDirIsAUsageError() throws {
        let r = try ProcessRunner.pushlab(["android", "launch"])
        XCTAssertEqual(r.status, 2)
        XCTAssertTrue(r.stderr.contains("missing --files-dir"), r.stderr)
    }

    /// Offline past the horizon: the metric stays in the SDK's file and receive exits 1; the
    /// launch hands it to the pipeline (`/v1/b`) of a real collector and empties the file.
    func testPendingMetricSurvivesInTheFileAndTheLaunchDeliversIt() throws {
        let dir = Fixtures.temporaryDirectory("android-cli")
        defer { try? FileManager.default.removeItem(at: dir) }
        let collector = try RunningPushlab(["collector", "--port", "off", "--h2c-port", "0", "--db", dir.appendingPathComponent("m.sqlite").path,
                                            "--cdp-key", "pushlab-demo-cdp-key", "--json"])
        defer { collector.terminate() }
        guard let first = collector.nextLine(), let listening = try? json(first), let url = listening["cleartext"] as? String else {
            return XCTFail("the collector printed no URL")
        }
        let files = dir.appendingPathComponent("files").path
        let metrics = ["--metrics-url", url, "--files-dir", files] + app

        let offline = try ProcessRunner.pushlab(["android", "receive", dataPush, "--offline", "0-10m", "--horizon", "1m", "--json"] + metrics)
        XCTAssertEqual(offline.status, 1, "a metric still pending is not complete: " + offline.stderr)
        XCTAssertEqual((try json(offline.stdout)["metric"] as? [String: Any])?["fate"] as? String, "pending")
        let file = try String(contentsOfFile: files + "/cio_pending_push_delivery.json", encoding: .utf8)
        XCTAssertEqual(file, #"[{"deliveryId":"dgTPBwYAAPvfBvoAAAGVb3FxBq5dLgYYb4Vn","token":"dlv-token-3f1c0c1e"}]"#)

        let launch = try ProcessRunner.pushlab(["android", "launch", "--json"] + metrics)
        XCTAssertEqual(launch.status, 0, launch.stderr)
        let handoff = try json(launch.stdout)
        XCTAssertEqual(handoff["handedOff"] as? [String], ["dgTPBwYAAPvfBvoAAAGVb3FxBq5dLgYYb4Vn"])
        XCTAssertEqual(handoff["leftInStore"] as? Int, 0)
        XCTAssertEqual(handoff["remainingInQueue"] as? Int, 0)
        XCTAssertTrue((handoff["uploads"] as? [String] ?? []).contains { $0.contains("/v1/b → 200") }, "\(handoff)")
        XCTAssertEqual(try String(contentsOfFile: files + "/cio_pending_push_delivery.json", encoding: .utf8), "[]")

        var stored: [String: Any]?
        while let line = collector.nextLine(timeout: 10) {
            if let event = try? json(line), event["event"] as? String == "metric" { stored = event; break }
        }
        XCTAssertEqual(stored?["route"] as? String, "/v1/b", "\(stored ?? [:])")
        XCTAssertEqual(collector.interrupt(), 0)
    }
}

import Foundation
import TestSupport
import XCTest

/// Issue 20 leftovers as real processes: `send fcm --live-activity-token` against `pushlab serve`,
/// and `activity tap --collector` posting the opened metric to a real `pushlab collector`.
final class LiveActivityFCMAndTapMetricTests: XCTestCase {
    private let fcmToken = "fcmTokenForLiveActivity:APA91b" + String(repeating: "x", count: 120)

    private func json(_ text: String) throws -> [String: Any] {
        try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], text)
    }

    private func sendFCM(_ server: LabServer, _ arguments: [String]) throws -> ProcessResult {
        try ProcessRunner.pushlab(["send", "fcm"] + arguments + ["--token", fcmToken, "--url", server.googleURL,
                                                                 "--service-account", "certs/fcm-service-account.json", "--ca-file", "certs/ca.pem"])
    }

    private func temporaryFile(_ text: String) -> String {
        let dir = Fixtures.temporaryDirectory("la-fcm")
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("message.json").path
        _ = FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
        return path
    }

    func testLiveActivityTokenFlagReachesTheFCMEmulatorInTheMessage() throws {
        let server = try LabServer()
        defer { server.stop() }
        let r = try sendFCM(server, ["payloads/live-activities/update.json", "--live-activity-token", "80a1b2c3d4e5f60718293a4b5c6d7e8f", "--json"])
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        XCTAssertEqual(try json(r.stdout)["outcome"] as? String, "accepted")

        // What the emulator received: the token under message.apns, next to the wrapped payload.
        let pushes = try ProcessRunner.run("/usr/bin/curl", ["-s", "--cacert", "certs/ca.pem", server.googleURL + "/admin/pushes"])
        let records = try XCTUnwrap(try json(pushes.stdout)["pushes"] as? [[String: Any]])
        let body = try json(try XCTUnwrap(records.last?["payload"] as? String))
        let apns = (body["message"] as? [String: Any])?["apns"] as? [String: Any]
        XCTAssertEqual(apns?["live_activity_token"] as? String, "80a1b2c3d4e5f60718293a4b5c6d7e8f")
        XCTAssertEqual(((apns?["payload"] as? [String: Any])?["aps"] as? [String: Any])?["event"] as? String, "update")
    }

    func testTheFlagReplacesATokenInTheFile() throws {
        let server = try LabServer()
        defer { server.stop() }
        let r = try sendFCM(server, ["payloads/live-activities/fcm-start.json", "--live-activity-token", "feedface"])
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        let pushes = try ProcessRunner.run("/usr/bin/curl", ["-s", "--cacert", "certs/ca.pem", server.googleURL + "/admin/pushes"])
        XCTAssertTrue(pushes.stdout.contains(#"\"live_activity_token\":\"feedface\""#), pushes.stdout)
        XCTAssertFalse(pushes.stdout.contains("push-to-start-token-hex"), "one token, the flag's")
    }

    /// Sends that must stop before the network still name a URL: a refused port of our own, never
    /// Google's default host.
    private func closedURL() throws -> [String] {
        let closed = try ClosedPort()
        addTeardownBlock { withExtendedLifetime(closed) {} }
        return ["--url", closed.httpsURL]
    }

    func testAnEmptyTokenNamesTheFlag() throws {
        let r = try ProcessRunner.pushlab(["send", "fcm", "payloads/live-activities/update.json", "--token", fcmToken,
                                           "--live-activity-token", "", "--service-account", "certs/fcm-service-account.json"] + closedURL())
        XCTAssertEqual(r.status, 2)
        XCTAssertTrue(r.stderr.contains("--live-activity-token is empty"), r.stderr)
    }

    func testANonObjectAPNsBlockNamesThePointer() throws {
        let file = temporaryFile(#"{"message":{"apns":"nope"}}"#)
        let r = try ProcessRunner.pushlab(["send", "fcm", file, "--token", fcmToken, "--live-activity-token", "abc",
                                           "--service-account", "certs/fcm-service-account.json"] + closedURL())
        XCTAssertEqual(r.status, 2)
        XCTAssertTrue(r.stderr.contains("/message/apns is the string \"nope\""), r.stderr)
    }

    /// The message with the flag is checked exactly as a file carrying the token would be.
    func testTheFlaggedMessageIsValidatedLikeAFileWithTheToken() throws {
        let startWithoutAttributes = #"{"aps":{"event":"start","timestamp":1767225600,"content-state":{"status":"placed"},"alert":{"title":"t","body":"b"}}}"#
        let flagged = try ProcessRunner.pushlab(["send", "fcm", temporaryFile(startWithoutAttributes), "--token", fcmToken,
                                                 "--live-activity-token", "abc", "--service-account", "certs/fcm-service-account.json"] + closedURL())
        let inFile = try ProcessRunner.pushlab(["send", "fcm", temporaryFile(#"{"message":{"apns":{"live_activity_token":"abc","payload":"# + startWithoutAttributes + "}}}"),
                                                "--token", fcmToken, "--service-account", "certs/fcm-service-account.json"] + closedURL())
        // Refused by validation (exit 1) before any connection: the URL is a closed port of ours.
        XCTAssertEqual(flagged.status, 1, "a start without attributes is refused: " + flagged.stderr)
        XCTAssertFalse(flagged.stderr.contains("refused") || flagged.stderr.contains("connect"), flagged.stderr)
        XCTAssertEqual(flagged.status, inFile.status)
        XCTAssertTrue(flagged.stderr.contains("attributes"), flagged.stderr)
        func findings(_ s: String) -> [Substring] { s.split(separator: "\n").filter { $0.contains("/message/apns/payload") }.map { $0.split(separator: ":", maxSplits: 2).last ?? "" } }
        XCTAssertEqual(findings(flagged.stderr), findings(inFile.stderr))
    }

    // MARK: activity tap --collector

    private func startCollector(_ dir: URL) throws -> (RunningPushlab, String) {
        let collector = try RunningPushlab(["collector", "--port", "off", "--h2c-port", "0", "--db", dir.appendingPathComponent("m.sqlite").path,
                                            "--cdp-key", "pushlab-demo-cdp-key", "--json"])
        guard let first = collector.nextLine(), let url = try json(first)["cleartext"] as? String else {
            collector.terminate()
            throw LabServerError(message: "the collector printed no URL")
        }
        return (collector, url)
    }

    private func metrics(_ collector: RunningPushlab, count: Int) throws -> [[String: Any]] {
        var out: [[String: Any]] = []
        while out.count < count, let line = collector.nextLine(timeout: 10) {
            if let event = try? json(line), event["event"] as? String == "metric" { out.append(event) }
        }
        return out
    }

    func testTapPostsTheOpenedMetricThroughThePipelineToTheCollector() throws {
        let dir = Fixtures.temporaryDirectory("la-tap")
        defer { try? FileManager.default.removeItem(at: dir) }
        let (collector, url) = try startCollector(dir)
        defer { collector.terminate() }
        let tap = "cio-live-activity://open?cio_delivery_id=RPILAgUBAAAAAg%3D%3D&cio_delivery_token=tok-42&cio_redirect=pushlab://orders/A-1042"
        let r = try ProcessRunner.pushlab(["activity", "tap", tap, "--app", "payloads/apps/live.json", "--warm", "--collector", url, "--json"])
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        let outcome = try json(r.stdout)
        XCTAssertEqual(outcome["uploadedEvents"] as? Int, 1)
        XCTAssertEqual(outcome["leftInQueue"] as? Int, 0)
        XCTAssertTrue((outcome["uploads"] as? [String] ?? []).contains { $0.contains("/v1/b → 200") }, "\(outcome)")

        let stored = try metrics(collector, count: 1)
        XCTAssertEqual(stored.first?["route"] as? String, "/v1/b")
        XCTAssertEqual(stored.first?["metric"] as? String, "opened")
        XCTAssertEqual(stored.first?["deliveryId"] as? String, "RPILAgUBAAAAAg==")
        XCTAssertEqual(collector.interrupt(), 0)
    }

    func testDoubleHandlingPostsTwoOpenedMetrics() throws {
        let dir = Fixtures.temporaryDirectory("la-tap")
        defer { try? FileManager.default.removeItem(at: dir) }
        let (collector, url) = try startCollector(dir)
        defer { collector.terminate() }
        let r = try ProcessRunner.pushlab(["activity", "tap", "cio-live-activity://open?cio_delivery_id=D-2", "--app", "payloads/apps/live-expo-double.json",
                                           "--collector", url])
        XCTAssertEqual(r.status, 1, "double handling is a failure: " + r.stdout + r.stderr)
        XCTAssertTrue(r.stdout.contains("upload: POST \(url)/v1/b → 200"), r.stdout)
        let stored = try metrics(collector, count: 2)
        XCTAssertEqual(stored.map { $0["deliveryId"] as? String }, ["D-2", "D-2"], "one opened per handleWidgetUrl call")
        XCTAssertEqual(collector.interrupt(), 0)
    }

    func testABadCollectorURLNamesTheFlag() throws {
        let r = try ProcessRunner.pushlab(["activity", "tap", "cio-live-activity://open?cio_delivery_id=D-3", "--app", "payloads/apps/live.json",
                                           "--collector", "ftp://nowhere"])
        XCTAssertEqual(r.status, 2)
        XCTAssertTrue(r.stderr.contains("--collector 'ftp://nowhere' is not an http(s) URL"), r.stderr)
    }
}

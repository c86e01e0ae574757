import XCTest
import PushCore
import PushHTTP
import TestSupport

/// `pushlab send apns|fcm` and `pushlab history` as a user runs them: the real binary against
/// the in-process server. Exit 0 accepted, 1 rejected, 2 usage/input error.
final class SendCommandExitCodeTests: XCTestCase {
    var dir: URL!
    var server: LocalPushServer!

    override func setUp() { dir = Fixtures.temporaryDirectory() }
    override func tearDown() async throws {
        await server?.stop()
        try? FileManager.default.removeItem(at: dir)
    }

    var history: String { dir.appendingPathComponent("history.sqlite").path }

    func apns(_ extra: [String], env: [String: String] = [:]) throws -> ProcessResult {
        try ProcessRunner.pushlab(["send", "apns", "--url", server.url, "--ca-file", Fixtures.caFile, "--key", Fixtures.apnsKey,
                                   "--team-id", Fixtures.apnsTeamID, "--topic", Fixtures.bundleID, "--history", history,
                                   "--retries", "1"] + extra, environment: env)
    }

    func testAcceptedPushExitsZeroAndIsRecordedInHistory() throws {
        server = try LocalPushServer()
        let r = try apns(["--token", TestTokens.apns, "--title", "Hello", "--body", "from the test", "--json"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let obj = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as! [String: Any]
        XCTAssertEqual(obj["outcome"] as? String, "accepted")
        let id = try XCTUnwrap(obj["apns_id"] as? String)
        XCTAssertEqual(server.snapshot.accepted[id], 1)

        let h = try ProcessRunner.pushlab(["history", "--history", history, "--json", "--last", "5", "--full-tokens"])
        XCTAssertEqual(h.status, 0, h.stderr)
        let rows = try JSONSerialization.jsonObject(with: Data(h.stdout.utf8)) as! [[String: Any]]
        XCTAssertEqual(rows.count, 1)
        XCTAssertEqual(rows[0]["message_id"] as? String, id)
        XCTAssertEqual(rows[0]["target"] as? String, TestTokens.apns)
        let text = try ProcessRunner.pushlab(["history", "--history", history, "--token", TestTokens.apns])
        XCTAssertTrue(text.stdout.contains("abababab…"), text.stdout)
        XCTAssertFalse(text.stdout.contains(TestTokens.apns))
    }

    func testRejectedPushExitsOneWithReasonAndFix() throws {
        server = try LocalPushServer(apns: { _ in .now(ServerResponse(status: 410, body: APNsErrorBody(reason: .unregistered, timestamp: 1_767_225_600_000).json)) })
        let payload = dir.appendingPathComponent("p.json").path
        try #"{"aps":{"alert":{"title":"t","body":"b"}}}"#.write(toFile: payload, atomically: true, encoding: .utf8)
        let r = try apns(["--token", TestTokens.apns, payload])
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertTrue(r.stdout.contains("Unregistered"), r.stdout)
        XCTAssertTrue(r.stdout.contains("fix:"), r.stdout)
        XCTAssertTrue(r.stdout.contains("2026-01-01"), r.stdout)
    }

    func testFCMTokenGivenToAPNsExitsTwoBeforeSending() throws {
        server = try LocalPushServer()
        let r = try apns(["--token", TestTokens.fcm, "--title", "x"])
        XCTAssertEqual(r.status, 2)
        XCTAssertTrue(r.stderr.contains("FCM registration token"), r.stderr)
        XCTAssertEqual(server.snapshot.requests, 0)
    }

    func testMissingTeamIDAndBadFlagsExitTwo() throws {
        server = try LocalPushServer()
        let r = try ProcessRunner.pushlab(["send", "apns", "--url", server.url, "--key", Fixtures.apnsKey, "--topic", "io.x",
                                           "--token", TestTokens.apns, "--title", "x", "--no-history"],
                                          environment: ["APNS_TEAM_ID": ""])
        XCTAssertEqual(r.status, 2)
        XCTAssertTrue(r.stderr.contains("--team-id"), r.stderr)
        let bad = try apns(["--token", TestTokens.apns, "--title", "x", "--push-type", "shout"])
        XCTAssertEqual(bad.status, 2)
        XCTAssertTrue(bad.stderr.contains("--push-type shout"), bad.stderr)
    }

    func testEnvironmentFallbacksAreUsed() throws {
        server = try LocalPushServer()
        let r = try ProcessRunner.pushlab(["send", "apns", "--url", server.url, "--ca-file", Fixtures.caFile, "--token", TestTokens.apns,
                                           "--title", "env", "--history", history],
                                          environment: ["APNS_KEY_PATH": Fixtures.apnsKey, "APNS_TEAM_ID": Fixtures.apnsTeamID,
                                                        "APNS_TOPIC": Fixtures.bundleID, "APNS_KEY_ID": Fixtures.apnsKeyID])
        XCTAssertEqual(r.status, 0, r.stderr)
    }

    func testInvalidPayloadIsRefusedUnlessNoValidate() throws {
        server = try LocalPushServer()
        let payload = dir.appendingPathComponent("bad.json").path
        try #"{"aps":{"badge":"three","alert":"x"}}"#.write(toFile: payload, atomically: true, encoding: .utf8)
        let r = try apns(["--token", TestTokens.apns, payload])
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertTrue(r.stderr.contains("/aps/badge"), r.stderr)
        XCTAssertEqual(server.snapshot.requests, 0)
        let forced = try apns(["--token", TestTokens.apns, "--no-validate", payload])
        XCTAssertEqual(forced.status, 0, forced.stderr)
        XCTAssertEqual(server.snapshot.requests, 1)
    }

    func testVerboseRedactsTheBearerAndShortensTheToken() throws {
        server = try LocalPushServer()
        let r = try apns(["--token", TestTokens.apns, "--title", "v", "--verbose"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("authorization: bearer <redacted>"), r.stderr)
        XCTAssertFalse(r.stderr.contains("eyJ"), "no JWT in the output")
        XCTAssertFalse(r.stderr.contains(TestTokens.apns), "no full token in the log")
        XCTAssertFalse((r.stdout + r.stderr).contains("PRIVATE KEY"))
    }

    func testBulkFromStdinWritesResultsAndPruneFile() throws {
        server = try LocalPushServer(apns: { request in
            request.pathParameters["token"] == TestTokens.apns(5)
                ? .now(ServerResponse(status: 400, body: APNsErrorBody(reason: .badDeviceToken).json)) : nil
        })
        let out = dir.appendingPathComponent("r.jsonl").path, prune = dir.appendingPathComponent("p.txt").path
        let tokens = (0..<300).map(TestTokens.apns).joined(separator: "\n")
        let r = try ProcessRunner.pushlab(["send", "apns", "--url", server.url, "--ca-file", Fixtures.caFile, "--key", Fixtures.apnsKey,
                                           "--team-id", Fixtures.apnsTeamID, "--topic", "io.x", "--history", history,
                                           "--tokens", "-", "--out", out, "--prune-file", prune, "--concurrency", "32", "--connections", "2",
                                           "--title", "bulk", "--json"], stdin: tokens)
        XCTAssertEqual(r.status, 1, "one push was rejected: \(r.stderr)")
        let summary = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as! [String: Any]
        XCTAssertEqual(summary["total"] as? Int, 300)
        XCTAssertEqual(summary["accepted"] as? Int, 299)
        XCTAssertEqual(try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n").count, 300)
        XCTAssertEqual(try String(contentsOfFile: prune, encoding: .utf8), TestTokens.apns(5) + "\n")
        let h = try ProcessRunner.pushlab(["history", "--history", history, "--json", "--last", "1000"])
        XCTAssertEqual((try JSONSerialization.jsonObject(with: Data(h.stdout.utf8)) as! [Any]).count, 300)
    }

    func testFCMDryRunWrapsAnAPNsPayloadAndExitsZero() throws {
        server = try LocalPushServer()
        let sa = try server.serviceAccountFile(in: dir)
        let payload = dir.appendingPathComponent("apns.json").path
        try #"{"aps":{"alert":{"title":"t","body":"b"},"mutable-content":1},"CIO":{"push":{"link":"myapp://x"}}}"#.write(toFile: payload, atomically: true, encoding: .utf8)
        let r = try ProcessRunner.pushlab(["send", "fcm", "--url", server.url, "--ca-file", Fixtures.caFile, "--service-account", sa,
                                           "--token", TestTokens.fcm, "--dry-run", "--history", history, payload])
        XCTAssertEqual(r.status, 0, r.stderr + r.stdout)
        let body = try XCTUnwrap(server.snapshot.fcmBodies.first)
        let root = try JSONDocument.parse(Array(body.utf8)).root
        XCTAssertEqual(root["validate_only"], .bool(true))
        XCTAssertEqual(root["message"]?["apns"]?["payload"]?["CIO"]?["push"]?["link"]?.stringValue, "myapp://x")
    }

    func testFCMRejectionExitsOneAndAPNsTokenExitsTwo() throws {
        server = try LocalPushServer(fcm: { _ in
            .now(ServerResponse(status: 403, body: FCMError(.senderIdMismatch, message: "SenderId mismatch").json))
        })
        let sa = try server.serviceAccountFile(in: dir)
        let base = ["send", "fcm", "--url", server.url, "--ca-file", Fixtures.caFile, "--history", history, "--title", "t"]
        let r = try ProcessRunner.pushlab(base + ["--token", TestTokens.fcm], environment: ["GOOGLE_APPLICATION_CREDENTIALS": sa])
        XCTAssertEqual(r.status, 1, r.stderr)
        XCTAssertTrue(r.stdout.contains("SENDER_ID_MISMATCH"), r.stdout)
        let wrong = try ProcessRunner.pushlab(base + ["--token", TestTokens.apns], environment: ["GOOGLE_APPLICATION_CREDENTIALS": sa])
        XCTAssertEqual(wrong.status, 2)
        XCTAssertTrue(wrong.stderr.contains("APNs device token"), wrong.stderr)
    }

    /// Every sample under payloads/ passes pre-flight with its inferred headers and is accepted.
    func testEverySamplePayloadIsSentAndAccepted() throws {
        server = try LocalPushServer()
        let apnsDir = Fixtures.path("payloads/apns"), fcmDir = Fixtures.path("payloads/fcm")
        for name in try FileManager.default.contentsOfDirectory(atPath: apnsDir).sorted() where name.hasSuffix(".json") {
            let r = try apns(["--token", TestTokens.apns, apnsDir + "/" + name])
            XCTAssertEqual(r.status, 0, "\(name): \(r.stdout) \(r.stderr)")
        }
        let sa = try server.serviceAccountFile(in: dir)
        for name in try FileManager.default.contentsOfDirectory(atPath: fcmDir).sorted() where name.hasSuffix(".json") {
            let r = try ProcessRunner.pushlab(["send", "fcm", "--url", server.url, "--ca-file", Fixtures.caFile, "--service-account", sa,
                                               "--history", history, fcmDir + "/" + name])
            XCTAssertEqual(r.status, 0, "\(name): \(r.stdout) \(r.stderr)")
        }
    }
}

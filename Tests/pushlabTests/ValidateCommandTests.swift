import XCTest
import TestSupport

/// `pushlab validate` as a real process: output shape, exit statuses, bad input.
final class ValidateCommandTests: XCTestCase {
    func testGoodSamplesExitZero() throws {
        let r = try ProcessRunner.pushlab(["validate", Fixtures.path("payloads/apns/rich-push.json"),
                                           Fixtures.path("payloads/fcm/rich-push.json"), Fixtures.path("payloads/simulator/rich-push.apns")])
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        XCTAssertEqual(r.stdout.components(separatedBy: ": ok").count - 1, 3, r.stdout)
    }

    func testFindingsPrintFileLineColumnPointerRuleAndFix() throws {
        let file = Fixtures.path("payloads/invalid/aps.badge.type.json")
        let r = try ProcessRunner.pushlab(["validate", file])
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stdout.contains("\(file):4:14  /aps/badge  aps.badge.type  error: badge is the string \"3\""), r.stdout)
        XCTAssertTrue(r.stdout.contains("fix: write the badge as a number"), r.stdout)
    }

    func testCommentsAreReportedAtTheirLine() throws {
        let r = try ProcessRunner.pushlab(["validate", "-"], stdin: "{\n  \"aps\": {\"alert\": \"hi\"}, // note\n}\n")
        XCTAssertEqual(r.status, 2, "not JSON: unreadable input, as in send")
        XCTAssertTrue(r.stdout.contains("-:2:27  -  json.comments  error: comments are not allowed in JSON"), r.stdout)
    }

    func testWarningsPassUnlessStrict() throws {
        let file = Fixtures.path("payloads/invalid/aps.unknown-key.json")
        XCTAssertEqual(try ProcessRunner.pushlab(["validate", file]).status, 0)
        XCTAssertEqual(try ProcessRunner.pushlab(["validate", "--strict", file]).status, 1)
    }

    func testJSONOutput() throws {
        let r = try ProcessRunner.pushlab(["validate", "--json", Fixtures.path("payloads/invalid/fcm.apns.headers.string.json")])
        XCTAssertEqual(r.status, 1)
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let files = try XCTUnwrap(json["files"] as? [[String: Any]])
        let finding = try XCTUnwrap((files.first?["findings"] as? [[String: Any]])?.first)
        XCTAssertEqual(finding["rule"] as? String, "fcm.apns.headers.string")
        XCTAssertEqual(finding["pointer"] as? String, "/message/apns/headers/apns-priority")
        XCTAssertEqual(files.first?["format"] as? String, "fcm")
        XCTAssertNotNil(finding["line"])
    }

    func testHeadersFromFlagsAreChecked() throws {
        let r = try ProcessRunner.pushlab(["validate", "--push-type", "voip", "--topic", "io.pushlab.demo",
                                           Fixtures.path("payloads/apns/silent-background.json")])
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stdout.contains("header apns-topic  apns.topic.suffix"), r.stdout)
    }

    /// A push type or priority APNs does not know, passed on purpose, is checked as the request
    /// would carry it: a finding naming the value (exit 1), the push judged as the alert APNs
    /// would apply. `send` refuses the same push type as a usage error before sending (exit 2).
    func testUnknownPushTypeAndPriorityAreFindingsNotUsageErrors() throws {
        let payload = Fixtures.path("payloads/apns/basic-alert.json")
        let r = try ProcessRunner.pushlab(["validate", "--json", "--push-type", "banner", "--priority", "7", payload])
        XCTAssertEqual(r.status, 1, r.stderr)
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let file = try XCTUnwrap((json["files"] as? [[String: Any]])?.first)
        let findings = try XCTUnwrap(file["findings"] as? [[String: Any]])
        XCTAssertEqual(findings.map { $0["rule"] as? String }, ["apns.push-type.unknown", "apns.priority.value"])
        XCTAssertEqual(findings.map { $0["header"] as? String }, ["apns-push-type", "apns-priority"])
        XCTAssertEqual(findings.first?["message"] as? String, #"apns-push-type "banner" is not a push type APNs knows"#)
        XCTAssertEqual(findings.last?["message"] as? String, #"apns-priority is "7""#)
        XCTAssertEqual(file["pushType"] as? String, "alert")

        let closed = try ClosedPort()
        let send = try ProcessRunner.pushlab(["send", "apns", "--key", Fixtures.path("certs/AuthKey_PLDEVKEY01.p8"), "--key-id", Fixtures.apnsKeyID,
                                              "--team-id", Fixtures.apnsTeamID, "--topic", Fixtures.bundleID, "--token", String(repeating: "ab", count: 32),
                                              "--url", "https://127.0.0.1:\(closed.port)", "--push-type", "banner", payload])
        XCTAssertEqual(send.status, 2, send.stderr)
        XCTAssertTrue(send.stderr.contains("--push-type banner is not an APNs push type"), send.stderr)
    }

    func testRulesListsTheCatalog() throws {
        let r = try ProcessRunner.pushlab(["validate", "--rules"])
        XCTAssertEqual(r.status, 0)
        for id in ["apns.size.max", "aps.mutable-content.type", "cio.image.https", "fcm.apns.headers.string"] {
            XCTAssertTrue(r.stdout.contains(id), id)
        }
    }

    func testMissingFileIsExitTwoNamingTheFile() throws {
        let r = try ProcessRunner.pushlab(["validate", "/nonexistent/payload.json"])
        XCTAssertEqual(r.status, 2)
        XCTAssertTrue(r.stderr.contains("/nonexistent/payload.json: no such file"), r.stderr)
    }

    func testHundredMegabyteFileIsRefusedUnread() throws {
        let dir = Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("huge.json").path
        // A sparse file: 100 MB long, no disk used, and it must not be read into memory.
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: nil))
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: path))
        try handle.truncate(atOffset: 100 * 1024 * 1024)
        try handle.close()
        let r = try ProcessRunner.pushlab(["validate", path])
        XCTAssertEqual(r.status, 2)
        XCTAssertTrue(r.stderr.contains("\(path): 104857600 bytes is larger than the 1024 KiB limit"), r.stderr)
    }

    func testBinaryFileIsAFindingWithItsPosition() throws {
        let dir = Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("image.png").path
        try Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 0x0D]).write(to: URL(fileURLWithPath: path))
        let r = try ProcessRunner.pushlab(["validate", path])
        XCTAssertEqual(r.status, 2, "not JSON: unreadable input, as in send")
        XCTAssertTrue(r.stdout.contains("\(path):1:1  -  json.encoding"), r.stdout)
    }

    func testUnknownFormatIsUsageError() throws {
        let r = try ProcessRunner.pushlab(["validate", "--format", "xml", Fixtures.path("payloads/apns/basic-alert.json")])
        XCTAssertEqual(r.status, 2)
        XCTAssertTrue(r.stderr.contains("--format must be"), r.stderr)
    }
}

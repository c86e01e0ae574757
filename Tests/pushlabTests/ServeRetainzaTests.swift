import Foundation
import TestSupport
import XCTest

/// `pushlab serve --retainza-app JSON` as real processes (docs/retainza.md): the Retainza iPhone's
/// FCM token is printed, a `pushlab send fcm` to it runs its handler (serve's line, the console's
/// device view) and its registration and ack are stored by serve's own collector.
final class ServeRetainzaTests: XCTestCase {
    /// The word after `prefix` on the first line that holds it.
    private func field(_ banner: String, after prefix: String) -> String? {
        for line in banner.split(separator: "\n") {
            guard let range = line.range(of: prefix) else { continue }
            let rest = line[range.upperBound...]
            return String(rest.prefix { !$0.isWhitespace && $0 != ";" })
        }
        return nil
    }

    private func sqlite(_ db: String, _ query: String) throws -> String {
        let r = try ProcessRunner.run("/usr/bin/env", ["sqlite3", db, query])
        XCTAssertEqual(r.status, 0, r.stderr)
        return r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func testAPushSentToThePrintedFCMTokenRunsTheRetainzaHandlers() throws {
        let dir = Fixtures.temporaryDirectory("serve-retainza")
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("collector.sqlite").path
        let serve = try ServerProcess(["serve", "--port", "0", "--apns-port", "0", "--h2c-port", "0", "--collector-db", db, "--console",
                                       "--retainza-app", "payloads/apps/retainza-demo.json"]) { $0.contains("device(s)") }
        defer { serve.stop() }
        let googleLine = serve.stdout.split(separator: "\n").first { $0.hasPrefix("https://") } ?? ""
        let url = String(googleLine.prefix { $0 != " " })
        XCTAssertFalse(url.isEmpty, serve.stdout)
        let token = try XCTUnwrap(field(serve.stdout, after: "FCM token "), serve.stdout)
        XCTAssertTrue(token.hasPrefix("fRzA1x2y3zQ:APA91b"), serve.stdout)
        XCTAssertFalse(serve.stdout.contains("did not register"), serve.stdout)

        func send(_ extra: [String]) throws -> ProcessResult {
            try ProcessRunner.pushlab(["send", "fcm", "--service-account", "certs/fcm-service-account.json", "--url", url,
                                       "--ca-file", "certs/ca.pem", "--token", token, "--title", "Sale", "--no-history"] + extra)
        }
        let sent = try send(["--data", "rz_message_id=serve-rz-1"])
        XCTAssertEqual(sent.status, 0, sent.stdout + sent.stderr)
        XCTAssertTrue(serve.waitForOutput { $0.contains("rz_message_id=serve-rz-1 → handleForeground, received ack delivered") },
                      serve.stdout + serve.stderr)
        // A push without rz_message_id: the handler runs, the SDK says it is not Retainza's, no ack.
        let other = try send([])
        XCTAssertEqual(other.status, 0, other.stdout + other.stderr)
        XCTAssertTrue(serve.waitForOutput { $0.contains("rz_message_id=- → handleForeground, no ack") }, serve.stdout + serve.stderr)

        let consoleURL = try XCTUnwrap(field(serve.stdout, after: "console: "), serve.stdout)
        let devices = try ProcessRunner.run("/usr/bin/env", ["curl", "-sS", "--fail", "--cacert", "certs/ca.pem", consoleURL + "/api/devices"])
        XCTAssertEqual(devices.status, 0, devices.stderr)
        XCTAssertTrue(devices.stdout.contains(#""sdkMode":"retainza""#), devices.stdout)
        XCTAssertTrue(devices.stdout.contains("serve-rz-1") && devices.stdout.contains("handleForeground"), devices.stdout)

        let transcript = serve.stop()
        XCTAssertEqual(serve.exitStatus, 0, transcript)
        XCTAssertEqual(try sqlite(db, "SELECT COUNT(*) FROM retainza_devices WHERE token = '\(token)' AND unregistered_at IS NULL"), "1")
        XCTAssertEqual(try sqlite(db, "SELECT status || ' ' || action FROM retainza_requests WHERE route = 'ack'"), "200 received")
        XCTAssertEqual(try sqlite(db, "SELECT message_id FROM retainza_requests WHERE route = 'ack'"), "serve-rz-1")
        XCTAssertEqual(try sqlite(db, "SELECT COUNT(*) FROM retainza_requests WHERE route = 'registerPush' AND status = 200"), "1")
    }

    func testABadRetainzaProfileIsAUsageErrorNamingTheJSONPointer() throws {
        let dir = Fixtures.temporaryDirectory("serve-retainza-bad")
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("app.json").path
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(#"{"sdkMode":"retainza","publicKey":"pk_test_x","storage":"disk"}"#.utf8)))
        let r = try ProcessRunner.pushlab(["serve", "--port", "0", "--apns-port", "0", "--h2c-port", "0", "--retainza-app", path])
        XCTAssertEqual(r.status, 2, r.stdout + r.stderr)
        XCTAssertTrue(r.stderr.contains("--retainza-app") && r.stderr.contains("/storage"), r.stderr)
        let wrong = try ProcessRunner.pushlab(["serve", "--port", "0", "--apns-port", "0", "--h2c-port", "0", "--retainza-app", "payloads/apps/demo.json"])
        XCTAssertEqual(wrong.status, 2, wrong.stdout + wrong.stderr)
        XCTAssertTrue(wrong.stderr.contains("/sdkMode"), wrong.stderr)
    }
}

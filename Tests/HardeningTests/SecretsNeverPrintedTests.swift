import Foundation
import TestSupport
import XCTest

/// Runs every command the suite can run offline with the dev credentials — sends with
/// --verbose against a real `pushlab serve`, bulk sends, history, demo, nse, open, collector,
/// report, the server logs, and error paths with bad keys — and greps all of their output
/// (stdout + stderr) for key material, JWTs, access tokens and full device tokens.
final class SecretsNeverPrintedTests: XCTestCase {
    private var transcript: [(label: String, text: String)] = []

    override func setUpWithError() throws {
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: Fixtures.pushlabBinary), "build pushlab first")
    }

    @discardableResult
    private func pushlab(_ args: [String], timeout: TimeInterval = 60) throws -> ProcessResult {
        let r = try ProcessRunner.run(Fixtures.pushlabBinary, args, environment: ["GOOGLE_APPLICATION_CREDENTIALS": ""],
                                      currentDirectory: Fixtures.root.path, timeout: timeout)
        transcript.append(("pushlab " + args.joined(separator: " "), r.stdout + r.stderr))
        return r
    }

    func testNoCommandPrintsKeyMaterialJWTsAccessTokensOrWholeDeviceTokens() throws {
        let dir = Fixtures.temporaryDirectory("secrets")
        defer { try? FileManager.default.removeItem(at: dir) }
        let gateway = try ServerProcess(["serve", "--port", "0", "--h2c-port", "0", "--apns-port", "0",
                                         "--db", dir.appendingPathComponent("gateway.sqlite").path]) { $0.contains("quick start") }
        let google = "https://127.0.0.1:\(try XCTUnwrap(gateway.port(after: "https://127.0.0.1:"), gateway.banner))"
        let apns = "https://127.0.0.1:\(try XCTUnwrap(gateway.port(after: "APNs: https://127.0.0.1:"), gateway.banner))"

        // The dev service account, pointed at this gateway's /token (private, as a real key file).
        let saPath = dir.appendingPathComponent("sa.json").path
        var sa = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: Fixtures.fcmServiceAccount))) as? [String: Any])
        sa["token_uri"] = google + "/token"
        try JSONSerialization.data(withJSONObject: sa).write(to: URL(fileURLWithPath: saPath))
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: saPath)

        let apnsTokens = (1...3).map { String(repeating: String(format: "%02x", $0 * 17), count: 32) }
        let fcmTokens = (1...3).map { "fcm\($0):APA91b" + String(repeating: "Qx\($0)", count: 48) }
        let history = dir.appendingPathComponent("history.sqlite").path
        let apnsCommon = ["--url", apns, "--ca-file", Fixtures.caFile, "--key", Fixtures.apnsKey, "--team-id", Fixtures.apnsTeamID,
                          "--topic", Fixtures.bundleID, "--history", history, "--verbose"]
        let fcmCommon = ["--url", google, "--ca-file", Fixtures.caFile, "--service-account", saPath, "--history", history, "--verbose"]

        // Sends that succeed, one at a time and in bulk, text and JSON.
        XCTAssertEqual(try pushlab(["send", "apns", "--token", apnsTokens[0], "--title", "hi"] + apnsCommon).status, 0, transcript.last!.text)
        // --verbose shows the request with the bearer redacted and the token shortened.
        let verbose = transcript.last!.text.lowercased()
        XCTAssertTrue(verbose.contains("authorization: bearer <redacted>"), verbose)
        XCTAssertTrue(verbose.contains("/3/device/\(apnsTokens[0].prefix(8))…"), verbose)
        XCTAssertEqual(try pushlab(["send", "apns", "--token", apnsTokens[0], "--title", "hi", "--json"] + apnsCommon).status, 0)
        XCTAssertEqual(try pushlab(["send", "fcm", "--token", fcmTokens[0], "--title", "hi"] + fcmCommon).status, 0, transcript.last!.text)
        let fcmVerbose = transcript.last!.text.lowercased()
        XCTAssertTrue(fcmVerbose.contains("authorization: bearer <redacted>"), fcmVerbose)
        XCTAssertEqual(try pushlab(["send", "fcm", "--token", fcmTokens[0], "--title", "hi", "--json"] + fcmCommon).status, 0)
        let apnsList = dir.appendingPathComponent("apns.txt"), fcmList = dir.appendingPathComponent("fcm.txt")
        try (apnsTokens.joined(separator: "\n") + "\nnothex\n").write(to: apnsList, atomically: true, encoding: .utf8)
        try fcmTokens.joined(separator: "\n").write(to: fcmList, atomically: true, encoding: .utf8)
        try pushlab(["send", "apns", "--tokens", apnsList.path, "--title", "hi", "--out", dir.appendingPathComponent("out.jsonl").path,
                     "--prune-file", dir.appendingPathComponent("prune.txt").path] + apnsCommon)
        try pushlab(["send", "fcm", "--tokens", fcmList.path, "--title", "hi", "--json"] + fcmCommon)
        // Rejections: a token the gateway does not know (BadDeviceToken path) and a wrong key.
        try pushlab(["send", "apns", "--token", apnsTokens[1], "--title", "hi", "--push-type", "voip", "--no-validate"] + apnsCommon)
        try pushlab(["history", "--history", history])
        try pushlab(["history", "--history", history, "--json"])
        // Error paths with bad keys and accounts.
        for key in ["AuthKey_ENCRYPTED1.p8", "AuthKey_TRUNCATED1.p8", "AuthKey_CORRUPT001.p8", "AuthKey_RSAKEY0001.p8"] {
            try pushlab(["send", "apns", "--token", apnsTokens[0], "--title", "hi", "--url", apns, "--key",
                         Corpus.directory("apns-key").appendingPathComponent(key).path, "--team-id", Fixtures.apnsTeamID,
                         "--topic", Fixtures.bundleID, "--no-history", "--verbose"])
        }
        for account in ["damaged-private-key.json", "ec-private-key.json", "pem-file.json"] {
            try pushlab(["send", "fcm", "--token", fcmTokens[0], "--title", "hi", "--url", google, "--service-account",
                         Corpus.directory("service-account").appendingPathComponent(account).path, "--no-history", "--verbose"])
        }
        // The dev key given to the wrong service, and a key the gateway does not trust.
        try pushlab(["send", "fcm", "--token", fcmTokens[0], "--title", "hi", "--url", google, "--service-account", Fixtures.apnsKey, "--no-history"])
        try pushlab(["send", "apns", "--token", apnsTokens[0], "--title", "hi", "--key-id", "OTHERKEY01"] + apnsCommon)
        XCTAssertTrue(gateway.stop().contains("apns"), "the gateway logged the pushes")
        transcript.append(("pushlab serve (log)", gateway.stop()))

        // The device side and the metrics path.
        try pushlab(["demo"], timeout: 120)
        try pushlab(["nse", "payloads/nse/rich-push.json", "--time-scale", "100", "--container", dir.appendingPathComponent("group").path])
        try pushlab(["app", "launch", "--container", dir.appendingPathComponent("group").path])
        try pushlab(["open", "payloads/taps/universal-link.json", "--app", "payloads/apps/demo.json", "--cold", "--no-metrics"])
        let metrics = dir.appendingPathComponent("metrics.sqlite").path
        let collector = try ServerProcess(["collector", "--port", "0", "--h2c-port", "off", "--cdp-key", "pushlab-demo-cdp-key",
                                           "--db", metrics]) { $0.contains("storing metrics") }
        let collectorURL = "https://127.0.0.1:\(try XCTUnwrap(collector.port(after: "https://127.0.0.1:"), collector.banner))"
        let body = #"{"anonymousId":"a","type":"track","event":"Report Delivery Event","properties":{"recipient":"\#(apnsTokens[2])","metric":"delivered","deliveryId":"d1"},"timestamp":"2026-01-01T00:00:00Z"}"#
        for auth in ["pushlab-demo-cdp-key:", "wrong-secret-key:"] {
            let r = try ProcessRunner.run("/usr/bin/curl", ["-s", "--cacert", Fixtures.caFile, "-X", "POST", "-H", "content-type: application/json",
                                                           "-H", "authorization: Basic " + Data(auth.utf8).base64EncodedString(),
                                                           "-d", body, collectorURL + "/v1/track"])
            XCTAssertFalse(r.stdout.isEmpty)
        }
        transcript.append(("pushlab collector (log)", collector.stop()))
        try pushlab(["report", "--db", metrics])
        try pushlab(["report", "--db", metrics, "--json"])

        XCTAssertGreaterThan(transcript.count, 25)
        try assertNoSecrets(deviceTokens: apnsTokens + fcmTokens)

        // The databases keep whole device tokens (they are the data) but no credential: the
        // gateway's records redact authorization, history and metrics never hold one.
        let credentials = [Data("pushlab-demo-cdp-key:".utf8).base64EncodedString(), Data("wrong-secret-key:".utf8).base64EncodedString(),
                           "wrong-secret-key"]
        for db in [dir.appendingPathComponent("gateway.sqlite").path, history, metrics] {
            let dump = try ProcessRunner.run("/usr/bin/sqlite3", [db, ".dump"])
            XCTAssertEqual(dump.status, 0, dump.stderr)
            XCTAssertGreaterThan(dump.stdout.count, 200, "\(db) is empty")
            transcript = [("sqlite3 \(db) .dump", dump.stdout)]
            try assertNoSecrets(deviceTokens: [])
            for c in credentials { XCTAssertFalse(dump.stdout.contains(c), "\(db) holds the collector credential \(c)") }
        }
    }

    private func assertNoSecrets(deviceTokens: [String]) throws {
        // Every 20-character run of the base64 body of each dev private key.
        var keyBodies: [(String, String)] = []
        for file in ["certs/AuthKey_PLDEVKEY01.p8", "certs/server.key", "certs/ca.key", "certs/untrusted.key"] {
            keyBodies.append((file, try pemBody(String(contentsOfFile: Fixtures.path(file), encoding: .utf8))))
        }
        let sa = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: Fixtures.fcmServiceAccount))) as? [String: Any])
        keyBodies.append(("fcm-service-account.json private_key", pemBody(try XCTUnwrap(sa["private_key"] as? String))))
        let jwt = try NSRegularExpression(pattern: #"eyJ[A-Za-z0-9_-]{10,}\."#)

        for (label, text) in transcript {
            XCTAssertFalse(text.contains("Fatal error"), "\(label) crashed:\n\(text)")
            for marker in ["BEGIN PRIVATE KEY", "BEGIN EC PRIVATE KEY", "BEGIN RSA PRIVATE KEY", "ya29."] {
                XCTAssertFalse(text.contains(marker), "'\(marker)' printed by \(label):\n\(text)")
            }
            if let m = jwt.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) {
                XCTFail("a JWT printed by \(label): \(text[Range(m.range, in: text)!])")
            }
            let compact = text.filter { !$0.isWhitespace }
            for (name, body) in keyBodies {
                let chars = Array(body)
                for start in stride(from: 0, through: chars.count - 20, by: 1) where compact.contains(String(chars[start..<start + 20])) {
                    XCTFail("key material of \(name) printed by \(label)")
                    break
                }
            }
            for token in deviceTokens where text.contains(token) {
                XCTFail("the whole device token \(token.prefix(8))… printed by \(label):\n\(text)")
            }
        }
    }

    private func pemBody(_ pem: String) -> String {
        pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
    }
}

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
        try Fixtures.requirePushlab()
    }

    /// Runs pushlab, keeps its output for the grep, and checks its exit status: a command that
    /// fails for another reason than the one the test set up would print something else.
    @discardableResult
    private func pushlab(_ args: [String], exits expected: Int32, timeout: TimeInterval = 60,
                         file: StaticString = #filePath, line: UInt = #line) throws -> ProcessResult {
        let r = try ProcessRunner.run(Fixtures.pushlabBinary, args, environment: ["GOOGLE_APPLICATION_CREDENTIALS": ""],
                                      currentDirectory: Fixtures.root.path, timeout: timeout)
        let label = "pushlab " + args.joined(separator: " ")
        transcript.append((label, r.stdout + r.stderr))
        XCTAssertEqual(r.status, expected, "\(label):\n\(r.stdout)\(r.stderr)", file: file, line: line)
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
        let saPath = try Fixtures.fcmServiceAccount(tokenURI: google + "/token", in: dir)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: saPath)

        let apnsTokens = (1...3).map { String(repeating: String(format: "%02x", $0 * 17), count: 32) }
        let fcmTokens = (1...3).map { "fcm\($0):APA91b" + String(repeating: "Qx\($0)", count: 48) }
        let history = dir.appendingPathComponent("history.sqlite").path
        let apnsCommon = ["--url", apns, "--ca-file", Fixtures.caFile, "--key", Fixtures.apnsKey, "--team-id", Fixtures.apnsTeamID,
                          "--topic", Fixtures.bundleID, "--history", history, "--verbose"]
        let fcmCommon = ["--url", google, "--ca-file", Fixtures.caFile, "--service-account", saPath, "--history", history, "--verbose"]

        // Sends that succeed, one at a time and in bulk, text and JSON.
        try pushlab(["send", "apns", "--token", apnsTokens[0], "--title", "hi"] + apnsCommon, exits: 0)
        // --verbose shows the request with the bearer redacted and the token shortened.
        let verbose = transcript.last!.text.lowercased()
        XCTAssertTrue(verbose.contains("authorization: bearer <redacted>"), verbose)
        XCTAssertTrue(verbose.contains("/3/device/\(apnsTokens[0].prefix(8))…"), verbose)
        try pushlab(["send", "apns", "--token", apnsTokens[0], "--title", "hi", "--json"] + apnsCommon, exits: 0)
        try pushlab(["send", "fcm", "--token", fcmTokens[0], "--title", "hi"] + fcmCommon, exits: 0)
        let fcmVerbose = transcript.last!.text.lowercased()
        XCTAssertTrue(fcmVerbose.contains("authorization: bearer <redacted>"), fcmVerbose)
        try pushlab(["send", "fcm", "--token", fcmTokens[0], "--title", "hi", "--json"] + fcmCommon, exits: 0)
        let apnsList = dir.appendingPathComponent("apns.txt"), fcmList = dir.appendingPathComponent("fcm.txt")
        try (apnsTokens.joined(separator: "\n") + "\nnothex\n").write(to: apnsList, atomically: true, encoding: .utf8)
        try fcmTokens.joined(separator: "\n").write(to: fcmList, atomically: true, encoding: .utf8)
        // The list holds one malformed token, so the bulk send reports a failure (exit 1).
        try pushlab(["send", "apns", "--tokens", apnsList.path, "--title", "hi", "--out", dir.appendingPathComponent("out.jsonl").path,
                     "--prune-file", dir.appendingPathComponent("prune.txt").path] + apnsCommon, exits: 1)
        try pushlab(["send", "fcm", "--tokens", fcmList.path, "--title", "hi", "--json"] + fcmCommon, exits: 0)
        // A rejection by the gateway (TopicDisallowed: quick start serves io.pushlab.demo only).
        let rejected = try pushlab(["send", "apns", "--token", apnsTokens[1], "--title", "hi", "--url", apns, "--ca-file", Fixtures.caFile,
                                    "--key", Fixtures.apnsKey, "--team-id", Fixtures.apnsTeamID, "--topic", "io.pushlab.other",
                                    "--history", history, "--verbose"], exits: 1)
        XCTAssertTrue(rejected.stdout.contains("TopicDisallowed"), rejected.stdout)
        try pushlab(["history", "--history", history], exits: 0)
        try pushlab(["history", "--history", history, "--json"], exits: 0)
        // Error paths with bad keys and accounts: unreadable input, exit 2.
        for key in ["AuthKey_ENCRYPTED1.p8", "AuthKey_TRUNCATED1.p8", "AuthKey_CORRUPT001.p8", "AuthKey_RSAKEY0001.p8"] {
            try pushlab(["send", "apns", "--token", apnsTokens[0], "--title", "hi", "--url", apns, "--key",
                         Corpus.directory("apns-key").appendingPathComponent(key).path, "--team-id", Fixtures.apnsTeamID,
                         "--topic", Fixtures.bundleID, "--no-history", "--verbose"], exits: 2)
        }
        for account in ["damaged-private-key.json", "ec-private-key.json", "pem-file.json"] {
            try pushlab(["send", "fcm", "--token", fcmTokens[0], "--title", "hi", "--url", google, "--service-account",
                         Corpus.directory("service-account").appendingPathComponent(account).path, "--no-history", "--verbose"], exits: 2)
        }
        // The dev key given to the wrong service (exit 2), and a key the gateway does not trust (rejected, exit 1).
        try pushlab(["send", "fcm", "--token", fcmTokens[0], "--title", "hi", "--url", google, "--service-account", Fixtures.apnsKey,
                     "--no-history"], exits: 2)
        try pushlab(["send", "apns", "--token", apnsTokens[0], "--title", "hi", "--key-id", "OTHERKEY01"] + apnsCommon, exits: 1)
        // Stopped once; its whole log (every request it answered) is what gets checked.
        let gatewayLog = gateway.stop()
        XCTAssertTrue(gatewayLog.contains("apns"), "the gateway logged the pushes:\n\(gatewayLog)")
        transcript.append(("pushlab serve (log)", gatewayLog))

        // The device side and the metrics path, on loopback only: the app profile points its
        // metrics at the local collector and the image comes from a local server.
        try pushlab(["demo"], exits: 0, timeout: 120)
        let metrics = dir.appendingPathComponent("metrics.sqlite").path
        let collector = try ServerProcess(["collector", "--port", "0", "--h2c-port", "off", "--cdp-key", "pushlab-demo-cdp-key",
                                           "--db", metrics]) { $0.contains("storing metrics") }
        defer { collector.stop() }
        let collectorURL = "https://127.0.0.1:\(try XCTUnwrap(collector.port(after: "https://127.0.0.1:"), collector.banner))"
        let images = try ServerProcess(["-u", "-m", "http.server", "--bind", "127.0.0.1", "--directory", Fixtures.path("payloads/assets"), "0"],
                                       executable: Fixtures.python) { $0.contains("Serving HTTP") }
        defer { images.stop() }
        let imagePort = try XCTUnwrap(images.port(after: "Serving HTTP on 127.0.0.1 port "), images.banner)
        let app = dir.appendingPathComponent("app.json")
        try Data(#"{"bundleId":"io.pushlab.demo","extensionBundleId":"io.pushlab.demo.richpush","cdpApiKey":"pushlab-demo-cdp-key","metricsBaseURL":"\#(collectorURL)","allowArbitraryLoads":true}"#.utf8).write(to: app)
        let push = dir.appendingPathComponent("push.json")
        var payload = try String(contentsOfFile: Fixtures.path("payloads/nse/rich-push.json"), encoding: .utf8)
        payload = payload.replacingOccurrences(of: "https://localhost:8443/images/demo-image.png", with: "http://127.0.0.1:\(imagePort)/small-image.png")
        try Data(payload.utf8).write(to: push)
        let group = dir.appendingPathComponent("group").path
        let nse = try pushlab(["nse", push.path, "--app", app.path, "--ca-file", Fixtures.caFile, "--container", group], exits: 0)
        XCTAssertTrue(nse.stdout.contains("127.0.0.1:\(imagePort)") && !nse.stdout.contains("localhost:8443"), nse.stdout)
        try pushlab(["app", "launch", "--app", app.path, "--ca-file", Fixtures.caFile, "--container", group], exits: 0)
        try pushlab(["open", "payloads/taps/universal-link.json", "--app", "payloads/apps/demo.json", "--cold", "--no-metrics"], exits: 0)
        let body = #"{"anonymousId":"a","type":"track","event":"Report Delivery Event","properties":{"recipient":"\#(apnsTokens[2])","metric":"delivered","deliveryId":"d1"},"timestamp":"2026-01-01T00:00:00Z"}"#
        for (auth, status) in [("pushlab-demo-cdp-key:", "200"), ("wrong-secret-key:", "401")] {
            let r = try ProcessRunner.run("/usr/bin/curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "--cacert", Fixtures.caFile,
                                                           "-X", "POST", "-H", "content-type: application/json",
                                                           "-H", "authorization: Basic " + Data(auth.utf8).base64EncodedString(),
                                                           "-d", body, collectorURL + "/v1/track"])
            XCTAssertEqual(r.stdout, status, "POST /v1/track with \(auth.prefix(6))…: \(r.stderr)")
        }
        let collectorLog = collector.stop()
        XCTAssertTrue(collectorLog.contains("RPILAgUBcRhIBqSfeiIwdIYJKxTY"), "the extension's metric reached the local collector:\n\(collectorLog)")
        transcript.append(("pushlab collector (log)", collectorLog))
        try pushlab(["report", "--db", metrics], exits: 0)
        try pushlab(["report", "--db", metrics, "--json"], exits: 0)

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

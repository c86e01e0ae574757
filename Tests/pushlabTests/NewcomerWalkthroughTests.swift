import Foundation
import TestSupport
import XCTest

/// Issue 17: the problems a newcomer's walk through the README found, each held by a test
/// against the real binary (and `pushlab serve` where a server is needed).
final class NewcomerWalkthroughTests: XCTestCase {
    private func serve(_ extra: [String] = [], executablePrefix: [String] = []) throws -> ServerProcess {
        try ServerProcess(executablePrefix + ["serve", "--port", "0", "--h2c-port", "0", "--apns-port", "0",
                                              "--cert", Fixtures.serverCert, "--key", Fixtures.serverKey] + extra,
                          executable: executablePrefix.isEmpty ? Fixtures.pushlabBinary : "/usr/bin/env") { $0.contains("quick start") || $0.contains("from --devices") }
    }

    private func pushlab(_ arguments: [String]) throws -> ProcessResult {
        try ProcessRunner.run(Fixtures.pushlabBinary, arguments, currentDirectory: Fixtures.root.path)
    }

    // Item 1 and 2: the images the examples use are served, and the dev service account works
    // with the emulator on any port (--url on loopback fetches the token from <url>/token).
    func testServeServesTheExampleImagesAndSendFCMFollowsTheEmulatorOnAnyPort() throws {
        let server = try serve()
        defer { server.stop() }
        let google = try XCTUnwrap(server.port(after: "https://127.0.0.1:"), server.banner)
        XCTAssertNotEqual(google, 8443)
        XCTAssertTrue(server.banner.contains("images: https://127.0.0.1:\(google)/images/<name> from \(Fixtures.path("payloads/assets"))/"), server.banner)
        let expected = try Data(contentsOf: URL(fileURLWithPath: Fixtures.path("payloads/assets/small-image.png")))
        let fetched = try ProcessRunner.run("/usr/bin/curl", ["-s", "--cacert", Fixtures.caFile, "-w", "%{http_code} %{size_download}", "-o", "/dev/null",
                                                              "https://127.0.0.1:\(google)/images/small-image.png"])
        XCTAssertEqual(fetched.stdout, "200 \(expected.count)")

        let send = try pushlab(["send", "fcm", "--service-account", Fixtures.fcmServiceAccount, "--url", "https://localhost:\(google)",
                                "--ca-file", Fixtures.caFile, "--no-history", "--dry-run", Fixtures.path("payloads/fcm/rich-push.json")])
        XCTAssertEqual(send.status, 0, send.stdout + send.stderr)
        XCTAssertTrue(send.stdout.contains("validate_only: true"), send.stdout)
    }

    // Item 8: a clean exit leaves no /tmp/pushlab-serve-collector-<pid>.sqlite behind.
    func testServeRemovesItsTemporaryCollectorFileAtACleanExit() throws {
        let tmp = Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: tmp) }
        let server = try serve(executablePrefix: ["TMPDIR=\(tmp.path)", Fixtures.pushlabBinary])
        let during = try FileManager.default.contentsOfDirectory(atPath: tmp.path)
        XCTAssertTrue(during.contains { $0.hasPrefix("pushlab-serve-collector-") }, "the collector's file is in TMPDIR while serve runs: \(during)")
        server.stop()
        XCTAssertEqual(server.exitStatus, 0)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: tmp.path), [])
    }

    // Item 4: a token never sent (an FCM token in an APNs list) is not in --prune-file and is
    // not counted as BadDeviceToken; a token APNs called Unregistered is.
    func testPruneFileHoldsOnlyTokensTheServiceCalledDead() throws {
        let server = try serve(["--devices", Fixtures.path("payloads/gateway/devices.json")])
        defer { server.stop() }
        let apns = try XCTUnwrap(server.port(after: "APNs: https://127.0.0.1:"), server.banner)
        let dir = Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let alive = "3a5fe9c1fd4e48aaffab16cf9b68867772ce802b5066deb902dbfbe2b419c372"
        let dead = "0f0e0d0c0b0a09080706050403020100f0e0d0c0b0a090807060504030201000"
        let fcm = "dGVzdC1pbnN0YW5jZS1pZA:APA91b" + String(repeating: "Xy9_-Q", count: 24)
        try [alive, fcm, dead].joined(separator: "\n").write(toFile: dir.path + "/tokens.txt", atomically: true, encoding: .utf8)
        let r = try pushlab(["send", "apns", "--key", Fixtures.apnsKey, "--team-id", Fixtures.apnsTeamID, "--topic", Fixtures.bundleID,
                             "--url", "https://127.0.0.1:\(apns)", "--ca-file", Fixtures.caFile, "--history", dir.path + "/history.sqlite",
                             "--tokens", dir.path + "/tokens.txt", "--prune-file", dir.path + "/dead.txt", "--json",
                             Fixtures.path("payloads/apns/basic-alert.json")])
        XCTAssertEqual(r.status, 1, r.stdout + r.stderr)
        XCTAssertEqual(try String(contentsOfFile: dir.path + "/dead.txt", encoding: .utf8), dead + "\n")
        XCTAssertFalse(r.stdout.contains("\"BadDeviceToken\""), r.stdout)
        XCTAssertTrue(r.stdout.contains("\"Unregistered\""), r.stdout)

        // Item 7: history --token takes the shortened token the output shows.
        let history = try pushlab(["history", "--history", dir.path + "/history.sqlite", "--token", String(alive.prefix(8)) + "…"])
        XCTAssertEqual(history.status, 0, history.stderr)
        XCTAssertEqual(history.stdout.split(separator: "\n").count, 1, history.stdout)
        XCTAssertTrue(history.stdout.contains("3a5fe9c1…"), history.stdout)
    }

    // Item 5: `open` redacts the CDP write key in the body, not only the header, and shortens device ids.
    func testOpenNeverPrintsTheWriteKeyAndShortensTheLegacyDeviceID() throws {
        for json in [false, true] {
            let cdp = try pushlab(["open", Fixtures.path("payloads/taps/app-scheme.json"), "--app", Fixtures.path("payloads/apps/demo.json"),
                                   "--cold", "--no-metrics"] + (json ? ["--json"] : []))
            XCTAssertTrue(cdp.stdout.contains("writeKey"), cdp.stdout)
            XCTAssertFalse((cdp.stdout + cdp.stderr).contains("pushlab-demo-cdp-key"), "the write key is the CDP API key: \(cdp.stdout)")
            let legacy = try pushlab(["open", Fixtures.path("payloads/taps/universal-link.json"), "--app", Fixtures.path("payloads/apps/legacy.json"),
                                      "--no-metrics"] + (json ? ["--json"] : []))
            XCTAssertTrue(legacy.stdout.contains("device_id"), legacy.stdout)
            XCTAssertFalse(legacy.stdout.contains("tok_7f3a9c"), "device ids are shortened like every token: \(legacy.stdout)")
            XCTAssertTrue(legacy.stdout.contains("tok_7f3a…"), legacy.stdout)
        }
    }

    // Item 3 and 7: the help names the emulator's APNs host; two endpoint flags are named.
    func testSendAPNsHelpNamesTheEmulatorsAPNsHostAndTwoEndpointFlagsAreNamed() throws {
        let help = try pushlab(["send", "apns", "--help"])
        XCTAssertTrue(help.stdout.contains("https://127.0.0.1:2197"), help.stdout)
        XCTAssertFalse(help.stdout.contains("8443"), "8443 is the Google host: every APNs push sent there answers 404")
        let both = try pushlab(["send", "apns", "--sandbox", "--url", "https://127.0.0.1:2197", "--key", Fixtures.apnsKey,
                                "--team-id", Fixtures.apnsTeamID, "--topic", Fixtures.bundleID, "--token", String(repeating: "ab", count: 32),
                                "--title", "x", "--no-history"])
        XCTAssertEqual(both.status, 2)
        XCTAssertTrue(both.stderr.contains("--sandbox and --url"), both.stderr)
    }

    // Item 2: cio-4 still deletes rows it could not upload, as the SDK does, but says so loudly;
    // improved keeps them.
    func testAppLaunchSaysLoudlyWhenCio4LosesRowsAndImprovedKeepsThem() throws {
        let closed = try ClosedPort()
        for (profile, lost) in [("demo", true), ("improved", false)] {
            let container = Fixtures.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: container) }
            let app = Fixtures.path("payloads/apps/\(profile).json")
            let nse = try pushlab(["nse", Fixtures.path("payloads/nse/rich-push.json"), "--app", app, "--container", container.path,
                                   "--collector", closed.httpsURL, "--time-scale", "100"])
            XCTAssertEqual(nse.status, 1, "the metric could not be sent: \(nse.stdout)")
            let launch = try pushlab(["app", "launch", "--app", app, "--container", container.path, "--collector", closed.httpsURL])
            XCTAssertEqual(launch.status, 1, launch.stdout + launch.stderr)
            XCTAssertEqual(launch.stderr.contains("1 row(s) lost, as the reference SDK would"), lost, launch.stderr)
            XCTAssertTrue(launch.stdout.contains("left in store: \(lost ? 0 : 1)"), launch.stdout)
        }
    }

    // Item 6: a push with an image but no mutable-content is not a success, and says why.
    func testNSEWithoutMutableContentSaysTheExtensionNeverRanAndExitsOne() throws {
        let r = try pushlab(["nse", Fixtures.path("payloads/nse/no-mutable-content.json"), "--collector", try ClosedPort().httpsURL])
        XCTAssertEqual(r.status, 1, r.stdout)
        XCTAssertFalse(r.stdout.contains("image: none in the push"), r.stdout)
        XCTAssertTrue(r.stdout.contains("but no aps.mutable-content: 1, so iOS never started the extension"), r.stdout)
    }

    // Item 6: a download cut short by --kill-at is reported as killed, not as the budget's expiry.
    func testNSEKilledDuringTheImageDownloadSaysItWasKilled() throws {
        // An image host that accepts the connection and never answers.
        let silent = try ServerProcess(["-c", """
            import socket, sys, time
            s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(8)
            print("port", s.getsockname()[1], flush=True)
            held = []
            while True:
                c, _ = s.accept(); held.append(c)
            """], executable: "/usr/bin/python3") { out in
            // The whole line: an unbuffered Python writes "port", " " and the number separately.
            out.range(of: #"port [0-9]+\n"#, options: .regularExpression) != nil
        }
        defer { silent.stop() }
        let port = try XCTUnwrap(silent.port(after: "port "))
        let dir = Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let payload = #"{"aps":{"alert":{"title":"t","body":"b"},"mutable-content":1},"CIO":{"push":{"image":"https://127.0.0.1:\#(port)/images/a.png"}},"CIO-Delivery-ID":"d1","CIO-Delivery-Token":"0f8b3e5a1c2d4e5f8a9b0c1d2e3f4a5b"}"#
        try payload.write(toFile: dir.path + "/push.json", atomically: true, encoding: .utf8)
        let r = try pushlab(["nse", dir.path + "/push.json", "--kill-at", "300", "--collector", try ClosedPort().httpsURL,
                             "--ca-file", Fixtures.caFile])
        XCTAssertEqual(r.status, 1, r.stdout)
        XCTAssertFalse(r.stdout.contains("when the budget expired"), r.stdout)
        XCTAssertTrue(r.stdout.contains("[cancelled-by-kill]"), r.stdout)
    }

    // Item 7: `app store --json` shows the rows' times as the file holds them (ISO 8601), not
    // JSONEncoder's seconds since 2001.
    func testAppStoreJSONShowsISO8601Times() throws {
        let dir = Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let append = try pushlab(["app", "store", "--container", dir.path, "--append", "2"])
        XCTAssertEqual(append.status, 0, append.stderr)
        let listed = try pushlab(["app", "store", "--container", dir.path, "--json"])
        XCTAssertEqual(listed.status, 0, listed.stderr)
        let rows = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]], listed.stdout)
        XCTAssertEqual(rows.count, 2)
        for row in rows {
            let text = try XCTUnwrap(row["timestamp"] as? String, "timestamp is text: \(row)")
            let date = try XCTUnwrap(ISO8601DateFormatter().date(from: text), "ISO 8601: \(text)")
            XCTAssertLessThan(abs(date.timeIntervalSinceNow), 3600, "the row was written just now: \(text)")
        }
    }

    // Item 7: `payload` takes `--background` as `send` does; a contradicting --push-type is refused.
    func testPayloadTakesBackgroundLikeSend() throws {
        let built = try pushlab(["payload", "--background", "--data", "sync=1", "--minify"])
        XCTAssertEqual(built.status, 0, built.stderr)
        let payload = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(built.stdout.utf8)) as? [String: Any], built.stdout)
        XCTAssertEqual((payload["aps"] as? [String: Any])?["content-available"] as? Int, 1, built.stdout)
        XCTAssertNil((payload["aps"] as? [String: Any])?["alert"], built.stdout)
        let clash = try pushlab(["payload", "--background", "--push-type", "alert", "--title", "x"])
        XCTAssertEqual(clash.status, 2)
        XCTAssertTrue(clash.stderr.contains("--background and --push-type alert disagree"), clash.stderr)
        let help = try pushlab(["payload", "--help"])
        XCTAssertTrue(help.stdout.contains("--background"), help.stdout)
    }

    // Item 7: an FCM token endpoint that cannot be reached is a failed push (exit 1) after the
    // same retries an unreachable APNs host gets, not an input error (exit 2) after one try.
    func testUnreachableTokenEndpointIsRetriedAndExitsOne() throws {
        let closed = try ClosedPort()
        let send = try pushlab(["send", "fcm", "--service-account", Fixtures.fcmServiceAccount, "--url", closed.httpsURL,
                                "--ca-file", Fixtures.caFile, "--no-history", "--retries", "1", "--json",
                                "--token", "dGVzdC1pbnN0YW5jZS1pZA:APA91b" + String(repeating: "Xy9_-Q", count: 24),
                                Fixtures.path("payloads/fcm/rich-push.json")])
        XCTAssertEqual(send.status, 1, send.stdout + send.stderr)
        let result = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(send.stdout.utf8)) as? [String: Any], send.stdout)
        XCTAssertEqual(result["outcome"] as? String, "failed")
        XCTAssertEqual(result["reason"] as? String, "AccessTokenError")
        XCTAssertEqual(result["attempts"] as? Int, 2, "--retries 1: the token request is tried twice")
        XCTAssertTrue((result["detail"] as? String)?.contains("could not reach the token endpoint") == true, send.stdout)
    }
}

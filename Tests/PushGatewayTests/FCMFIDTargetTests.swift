import Foundation
import PushCore
import TestSupport
import XCTest

/// The `fid` target (a Firebase Installation ID) end to end: the real firebase-admin 7.x SDK
/// (in .venv) sends `Message(fid=…)`, `send_each` and `MulticastMessage(fids=…)` to
/// `pushlab serve`, which answers as FCM does (docs/specs/fcm.md "`fid` beside `token`"): a
/// registered FID is accepted, an unknown one is 404 UNREGISTERED, a malformed one is 400
/// INVALID_ARGUMENT. `pushlab send fcm --fid` and `--fids FILE` go to the same gateway.
final class FCMFIDTargetTests: XCTestCase {
    private let phoneFID = "dQw4w9WgXcQpZ7k3mB2x_A"
    private let tabletFID = "fK3j9_-pQmZx0aB7cD1eFg"
    private let unknownFID = "cAbCdEfGhIjKlMnOpQrStU"
    /// 22 base64url characters, but an FID's first character is c, d, e or f.
    private let badFID = "aW1hZ2luYXJ5LWluc3RhbG"

    private struct Gateway {
        let process: ServerProcess
        let base: String
        let account: String
    }

    private func startGateway(in dir: URL) throws -> Gateway {
        let devices = dir.appendingPathComponent("devices.json")
        try Data(#"""
            {"devices": [
              {"name": "phone", "platform": "android", "fid": "\#(phoneFID)", "bundleID": "io.pushlab.demo", "firebaseProject": "pushlab-dev"},
              {"name": "tablet", "platform": "android", "fid": "\#(tabletFID)", "bundleID": "io.pushlab.demo", "firebaseProject": "pushlab-dev"}
            ]}
            """#.utf8).write(to: devices)
        let gateway = try ServerProcess(["serve", "--port", "0", "--h2c-port", "0", "--apns-port", "0", "--devices", devices.path]) {
            $0.contains("quick start") || $0.contains("device(s)")
        }
        let base = "https://127.0.0.1:\(try XCTUnwrap(gateway.port(after: "https://127.0.0.1:"), gateway.banner))"
        let account = try Fixtures.fcmServiceAccount(tokenURI: base + "/token", in: dir)
        return Gateway(process: gateway, base: base, account: account)
    }

    func testFirebaseAdminSendsToFIDsAndTheEmulatorAnswersAsFCM() throws {
        try Fixtures.requirePushlab()
        try Fixtures.requireExecutable(Fixtures.python)
        let dir = Fixtures.temporaryDirectory("fcm-fid-peer")
        defer { try? FileManager.default.removeItem(at: dir) }
        let gateway = try startGateway(in: dir)
        defer { gateway.process.stop() }

        let r = try ProcessRunner.run(Fixtures.python, [Fixtures.path("Tests/PushGatewayTests/Peers/firebase_admin_fid.py"), gateway.base, gateway.account,
                                                        phoneFID, tabletFID, "--", unknownFID, badFID],
                                      environment: ["REQUESTS_CA_BUNDLE": Fixtures.caFile, "SSL_CERT_FILE": Fixtures.caFile], timeout: 120)
        XCTAssertEqual(r.status, 0, "firebase-admin peer: \(r.stderr)")
        var results: [String: [String: Any]] = [:]
        for line in r.stdout.split(separator: "\n") {
            let o = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            results[o["name"] as? String ?? ""] = o
        }
        func status(_ name: String) -> Int? { results[name]?["status"] as? Int }
        func exception(_ name: String) -> String? { results[name]?["exception"] as? String }

        XCTAssertEqual(status("send-fid"), 200, "\(results["send-fid"] ?? [:])")
        XCTAssertTrue((results["send-fid"]?["message_id"] as? String ?? "").hasPrefix("projects/pushlab-dev/messages/"))
        XCTAssertEqual(status("send-unknown-fid"), 404)
        XCTAssertEqual(exception("send-unknown-fid"), "UnregisteredError")
        XCTAssertEqual(status("send-bad-fid"), 400)
        XCTAssertEqual(exception("send-bad-fid"), "InvalidArgumentError")
        XCTAssertEqual([status("send-each-0"), status("send-each-1"), status("send-each-2")], [200, 200, 404])
        XCTAssertEqual(exception("send-each-2"), "UnregisteredError")
        XCTAssertEqual(results["multicast-fids"]?["success_count"] as? Int, 2)
        XCTAssertEqual(results["multicast-fids"]?["failure_count"] as? Int, 0)
    }

    func testSendFCMWithFIDAndAFileOfFIDs() throws {
        try Fixtures.requirePushlab()
        let dir = Fixtures.temporaryDirectory("fcm-fid-cli")
        defer { try? FileManager.default.removeItem(at: dir) }
        let gateway = try startGateway(in: dir)
        defer { gateway.process.stop() }
        let history = dir.appendingPathComponent("history.sqlite").path
        let base = ["send", "fcm", "--url", gateway.base, "--ca-file", Fixtures.caFile, "--service-account", gateway.account,
                    "--history", history, "--retries", "0", "--title", "Hi", "--body", "there"]

        let one = try ProcessRunner.pushlab(base + ["--fid", phoneFID, "--json"])
        XCTAssertEqual(one.status, 0, one.stdout + one.stderr)
        XCTAssertFalse(one.stdout.contains(phoneFID), "an installation id is shortened like a token:\n\(one.stdout)")

        let unknown = try ProcessRunner.pushlab(base + ["--fid", unknownFID])
        XCTAssertEqual(unknown.status, 1, unknown.stdout + unknown.stderr)
        XCTAssertTrue(unknown.stdout.contains("UNREGISTERED"), unknown.stdout)

        let bad = try ProcessRunner.pushlab(base + ["--fid", badFID])
        XCTAssertEqual(bad.status, 2, "a malformed FID is refused before sending")
        XCTAssertTrue(bad.stderr.contains("--fid") && bad.stderr.contains("starting with c, d, e or f"), bad.stderr)

        let both = try ProcessRunner.pushlab(base + ["--fid", phoneFID, "--token", "x"])
        XCTAssertEqual(both.status, 2)
        XCTAssertTrue(both.stderr.contains("--fid and --token"), both.stderr)

        let file = dir.appendingPathComponent("fids.txt")
        try Data("# installation ids\n\(phoneFID)\n\(tabletFID)\n\(unknownFID)\n".utf8).write(to: file)
        let bulk = try ProcessRunner.pushlab(base + ["--fids", file.path, "--json"])
        XCTAssertEqual(bulk.status, 1, "one FID is unknown: \(bulk.stdout) \(bulk.stderr)")
        let summary = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(bulk.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(summary["accepted"] as? Int, 2)
        XCTAssertEqual(summary["rejected"] as? Int, 1)
        XCTAssertEqual((summary["reasons"] as? [String: Int])?["UNREGISTERED"], 1)

        let shown = try ProcessRunner.pushlab(["history", "--history", history, "--json"])
        XCTAssertEqual(shown.status, 0, shown.stderr)
        let entries = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(shown.stdout.utf8)) as? [[String: Any]])
        XCTAssertEqual(entries.filter { $0["target_kind"] as? String == "fid" }.count, 5, shown.stdout)
        let text = try ProcessRunner.pushlab(["history", "--history", history])
        XCTAssertTrue(text.stdout.contains("fid "), text.stdout)
    }
}

import Foundation
import TestSupport
import XCTest

/// A key file readable by the group or others gets a warning on stderr naming the file and the
/// `chmod 600` fix; the command still runs (a warning, not an error). A 0600 copy gets none.
final class KeyFilePermissionWarningTests: XCTestCase {
    override func setUpWithError() throws {
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: Fixtures.pushlabBinary), "build pushlab first")
    }

    private func copy(_ source: String, to dir: URL, name: String, mode: Int) throws -> String {
        let path = dir.appendingPathComponent(name).path
        try FileManager.default.copyItem(atPath: source, toPath: path)
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
        return path
    }

    func testSendWarnsAboutAGroupOrWorldReadableKeyAndNamesTheFix() throws {
        let dir = Fixtures.temporaryDirectory("perm")
        defer { try? FileManager.default.removeItem(at: dir) }
        let token = String(repeating: "3a5f", count: 16)
        // Port 9 (discard) is closed: the send fails after the key was loaded; only stderr matters.
        for (mode, warns) in [(0o644, true), (0o640, true), (0o604, true), (0o600, false), (0o400, false)] {
            let key = try copy(Fixtures.apnsKey, to: dir, name: "AuthKey_PLDEVKEY01-\(String(mode, radix: 8)).p8", mode: mode)
            let apns = try ProcessRunner.pushlab(["send", "apns", "--key", key, "--key-id", Fixtures.apnsKeyID, "--team-id", Fixtures.apnsTeamID,
                                                  "--topic", Fixtures.bundleID, "--token", token, "--title", "x", "--url", "https://127.0.0.1:9",
                                                  "--retries", "0", "--no-history"])
            let line = apns.stderr.split(separator: "\n").first { $0.contains("readable by other users") }
            if warns {
                let line = try XCTUnwrap(line, "no warning for mode \(String(mode, radix: 8)): \(apns.stderr)")
                XCTAssertTrue(line.contains("warning"), String(line))
                XCTAssertTrue(line.contains("--key \(key)"), String(line))
                XCTAssertTrue(line.contains("chmod 600 \(key)"), String(line))
                XCTAssertNotEqual(apns.status, 2, "a warning, not a usage error")
            } else {
                XCTAssertNil(line, "warning for a private key file (mode \(String(mode, radix: 8)))")
            }
        }
        let account = try copy(Fixtures.fcmServiceAccount, to: dir, name: "sa.json", mode: 0o644)
        let fcm = try ProcessRunner.pushlab(["send", "fcm", "--service-account", account, "--topic", "news", "--title", "x",
                                             "--url", "https://127.0.0.1:9", "--retries", "0", "--no-history"])
        XCTAssertTrue(fcm.stderr.contains("warning: --service-account \(account) is readable by other users"), fcm.stderr)
        XCTAssertTrue(fcm.stderr.contains("chmod 600 \(account)"), fcm.stderr)
    }

    func testTheTLSKeyOfTheServersIsCheckedToo() throws {
        let dir = Fixtures.temporaryDirectory("perm")
        defer { try? FileManager.default.removeItem(at: dir) }
        let key = try copy(Fixtures.serverKey, to: dir, name: "server.key", mode: 0o644)
        // --fault oops fails after the key check, so the server never starts.
        let r = try ProcessRunner.pushlab(["serve", "--port", "0", "--h2c-port", "0", "--apns-port", "0", "--cert", Fixtures.serverCert,
                                           "--key", key, "--fault", "oops"])
        XCTAssertTrue(r.stderr.contains("--key \(key) is readable by other users"), r.stderr)
    }

    func testBootstrapMakesTheCommittedDevKeysPrivate() throws {
        // git keeps no 0600, so scripts/bootstrap chmods them: a fresh clone stays quiet.
        let script = try String(contentsOfFile: Fixtures.path("scripts/bootstrap"), encoding: .utf8)
        XCTAssertTrue(script.contains("chmod 600 certs/*.p8 certs/*.key certs/fcm-service-account.json"))
    }
}

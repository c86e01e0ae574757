import Foundation
import TestSupport
import XCTest

/// A key file readable by the group or others gets a warning on stderr naming the file and the
/// `chmod 600` fix; the command still runs (a warning, not an error). A 0600 copy gets none.
final class KeyFilePermissionWarningTests: XCTestCase {
    override func setUpWithError() throws {
        try Fixtures.requirePushlab()
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
        // A port that refuses connections: the send fails after the key was loaded (exit 1); only stderr matters.
        let closed = try ClosedPort()
        for (mode, warns) in [(0o644, true), (0o640, true), (0o604, true), (0o600, false), (0o400, false)] {
            let key = try copy(Fixtures.apnsKey, to: dir, name: "AuthKey_PLDEVKEY01-\(String(mode, radix: 8)).p8", mode: mode)
            let apns = try ProcessRunner.pushlab(["send", "apns", "--key", key, "--key-id", Fixtures.apnsKeyID, "--team-id", Fixtures.apnsTeamID,
                                                  "--topic", Fixtures.bundleID, "--token", token, "--title", "x", "--url", closed.httpsURL,
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
            XCTAssertEqual(apns.status, 1, "the key loaded and the send failed to connect: \(apns.stderr)")
        }
        // The dev account's token_uri names a fixed port (localhost:8443); point it at the closed one.
        let account = try Fixtures.fcmServiceAccount(tokenURI: closed.httpsURL + "/token", in: dir)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: account)
        let fcm = try ProcessRunner.pushlab(["send", "fcm", "--service-account", account, "--topic", "news", "--title", "x",
                                             "--url", closed.httpsURL, "--retries", "0", "--no-history"])
        XCTAssertTrue(fcm.stderr.contains("warning: --service-account \(account) is readable by other users"), fcm.stderr)
        XCTAssertTrue(fcm.stderr.contains("chmod 600 \(account)"), fcm.stderr)
        XCTAssertTrue((fcm.stdout + fcm.stderr).contains("could not reach the token endpoint") && (fcm.stdout + fcm.stderr).contains("port \(closed.port)"),
                      "the account loaded and the token request failed to connect: \(fcm.stdout)\(fcm.stderr)")
        XCTAssertNotEqual(fcm.status, 0)
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
        // git keeps no 0600. Run the real scripts/bootstrap on a copy of the repository's certs/
        // checked out as git leaves them (0644), then check its effect: every private key is 0600
        // and a send with the dev key prints no warning. Nothing is installed: the copy shares
        // the venv (its requirements stamp matches) and the Debian packages are already there.
        let dir = Fixtures.temporaryDirectory("bootstrap")
        defer { try? FileManager.default.removeItem(at: dir) }
        let fm = FileManager.default
        try fm.createDirectory(at: dir.appendingPathComponent("scripts"), withIntermediateDirectories: true)
        for file in ["scripts/bootstrap", "scripts/python-requirements.txt"] {
            try fm.copyItem(atPath: Fixtures.path(file), toPath: dir.appendingPathComponent(file).path)
        }
        try fm.copyItem(atPath: Fixtures.path("certs"), toPath: dir.appendingPathComponent("certs").path)
        try fm.createSymbolicLink(atPath: dir.appendingPathComponent(".venv").path, withDestinationPath: Fixtures.path(".venv"))
        let privateFiles = try fm.contentsOfDirectory(atPath: dir.appendingPathComponent("certs").path)
            .filter { $0.hasSuffix(".p8") || $0.hasSuffix(".key") || $0 == "fcm-service-account.json" }
        XCTAssertGreaterThanOrEqual(privateFiles.count, 5, "\(privateFiles)")
        for name in privateFiles {
            try fm.setAttributes([.posixPermissions: 0o644], ofItemAtPath: dir.appendingPathComponent("certs/\(name)").path)
        }

        let r = try ProcessRunner.run("/bin/bash", [dir.appendingPathComponent("scripts/bootstrap").path], timeout: 120)
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        XCTAssertFalse(r.stdout.contains("installing") || r.stdout.contains("creating Python venv"), "bootstrap installed something: \(r.stdout)")
        for name in privateFiles {
            let mode = try XCTUnwrap(fm.attributesOfItem(atPath: dir.appendingPathComponent("certs/\(name)").path)[.posixPermissions] as? Int)
            XCTAssertEqual(mode & 0o077, 0, "certs/\(name) is still mode \(String(mode, radix: 8)) after bootstrap")
        }
        let closed = try ClosedPort()
        let key = dir.appendingPathComponent("certs/AuthKey_PLDEVKEY01.p8").path
        let send = try ProcessRunner.pushlab(["send", "apns", "--key", key, "--team-id", Fixtures.apnsTeamID, "--topic", Fixtures.bundleID,
                                              "--token", String(repeating: "3a5f", count: 16), "--title", "x", "--url", closed.httpsURL,
                                              "--retries", "0", "--no-history"])
        XCTAssertEqual(send.status, 1, send.stderr)
        XCTAssertFalse(send.stderr.contains("readable by other users"), send.stderr)
    }
}

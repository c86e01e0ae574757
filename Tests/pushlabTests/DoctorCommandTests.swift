import Foundation
import TestSupport
import XCTest

/// `pushlab doctor`: every finding triggered by a crafted bad input, and the online checks
/// against a real emulator.
final class DoctorCommandTests: XCTestCase {
    private var dir: URL!
    private var env: [String: String] = [:]

    override func setUp() {
        dir = Fixtures.temporaryDirectory("pushlab-doctor")
        env = ["PUSHLAB_CONFIG": dir.appendingPathComponent("config.json").path]
    }
    override func tearDown() { try? FileManager.default.removeItem(at: dir) }

    private struct Finding: Decodable { var check: String; var level: String; var message: String; var fix: String? }

    private func doctor(_ args: [String]) throws -> (status: Int32, findings: [Finding], stderr: String) {
        let r = try ProcessRunner.pushlab(["doctor", "--json"] + args, environment: env)
        let findings = (try? JSONDecoder().decode([Finding].self, from: Data(r.stdout.utf8))) ?? []
        return (r.status, findings, r.stderr)
    }

    private func level(_ findings: [Finding], _ check: String) -> String? { findings.first { $0.check == check }?.level }

    private func privateCopy(_ source: String, name: String, mode: Int = 0o600) throws -> String {
        let path = dir.appendingPathComponent(name).path
        try FileManager.default.copyItem(atPath: source, toPath: path)
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
        return path
    }

    func testGoodCredentialsPassWithEveryCheckOK() throws {
        let key = try privateCopy(Fixtures.apnsKey, name: "AuthKey_PLDEVKEY01.p8")
        let account = try privateCopy(Fixtures.fcmServiceAccount, name: "sa.json")
        let r = try doctor(["--key", key, "--team-id", Fixtures.apnsTeamID, "--topic", Fixtures.bundleID,
                            "--service-account", account, "--token", String(repeating: "ab", count: 32)])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(Set(r.findings.map(\.check)), ["apns.key", "apns.bundle-id", "fcm.service-account", "token"])
        XCTAssertTrue(r.findings.allSatisfy { $0.level == "ok" }, "\(r.findings)")
    }

    // Issue 25: a provider certificate is reported (topics, environments, validity) and checked
    // against --topic and the environment with the sender's own rules.
    func testACertificateIsReportedAndCheckedAgainstTopicAndEnvironment() throws {
        let p12 = try privateCopy(Fixtures.path("certs/apns-client.p12"), name: "push.p12")
        let password = dir.appendingPathComponent("pw").path
        try "pushlab-dev\n".write(toFile: password, atomically: true, encoding: .utf8)
        let good = try doctor(["--cert", p12, "--cert-password-file", password, "--sandbox", "--topic", Fixtures.bundleID])
        XCTAssertEqual(good.status, 0, good.stderr)
        let cert = try XCTUnwrap(good.findings.first { $0.check == "apns.cert" })
        XCTAssertEqual(cert.level, "ok")
        XCTAssertTrue(cert.message.contains("io.pushlab.demo.voip") && cert.message.contains("sandbox and production"), cert.message)
        XCTAssertFalse(good.findings.contains { $0.message.contains("pushlab-dev\n") })

        let sandboxKey = try privateCopy(Fixtures.path("certs/apns-client-sandbox.key"), name: "sandbox.key")
        let wrongEnvironment = try doctor(["--cert", Fixtures.path("certs/apns-client-sandbox.pem"), "--cert-key", sandboxKey, "--production"])
        XCTAssertEqual(wrongEnvironment.status, 1)
        XCTAssertEqual(level(wrongEnvironment.findings, "apns.cert-fit"), "error")
        XCTAssertTrue(wrongEnvironment.findings.first { $0.check == "apns.cert-fit" }?.fix?.contains("--sandbox") == true)

        let expiredKey = try privateCopy(Fixtures.path("certs/apns-client-expired.key"), name: "expired.key")
        let expired = try doctor(["--cert", Fixtures.path("certs/apns-client-expired.pem"), "--cert-key", expiredKey])
        XCTAssertEqual(expired.status, 1)
        XCTAssertTrue(expired.findings.first { $0.check == "apns.cert-fit" }?.message.contains("expired") == true, "\(expired.findings)")

        let noPassword = try doctor(["--cert", p12])
        XCTAssertEqual(noPassword.status, 1)
        XCTAssertEqual(level(noPassword.findings, "apns.cert"), "error")
    }

    func testEachBadInputGivesItsFindingWithAFix() throws {
        let key = try privateCopy(Fixtures.apnsKey, name: "AuthKey_PLDEVKEY01.p8")
        let notAKey = dir.appendingPathComponent("AuthKey_ABCDEFGHIJ.p8").path
        try Data("not a key".utf8).write(to: URL(fileURLWithPath: notAKey))
        var r = try doctor(["--key", notAKey, "--team-id", Fixtures.apnsTeamID])
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(level(r.findings, "apns.key"), "error")
        XCTAssertNotNil(r.findings.first { $0.check == "apns.key" }?.fix)

        r = try doctor(["--key", key, "--team-id", "SHORT"])
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(level(r.findings, "apns.key"), "error", "a team id of the wrong shape")

        r = try doctor(["--key", key, "--team-id", Fixtures.apnsTeamID, "--topic", "io.pushlab.demo.voip"])
        XCTAssertEqual(r.status, 0, "a suffix is a warning")
        XCTAssertEqual(level(r.findings, "apns.bundle-id"), "warning")
        XCTAssertTrue(r.findings.first { $0.check == "apns.bundle-id" }?.fix?.contains("io.pushlab.demo") == true)

        let shared = try privateCopy(Fixtures.apnsKey, name: "shared.p8", mode: 0o644)
        r = try doctor(["--key", shared, "--key-id", Fixtures.apnsKeyID, "--team-id", Fixtures.apnsTeamID])
        XCTAssertEqual(level(r.findings, "apns.key-permissions"), "warning")

        r = try doctor(["--key", key, "--team-id", Fixtures.apnsTeamID, "--token", "fcmtoken:APA91b" + String(repeating: "x", count: 140)])
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(level(r.findings, "token"), "error", "an FCM token checked for APNs")

        let badAccount = dir.appendingPathComponent("sa.json").path
        try Data(#"{"type":"service_account"}"#.utf8).write(to: URL(fileURLWithPath: badAccount))
        r = try doctor(["--service-account", badAccount])
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(level(r.findings, "fcm.service-account"), "error")

        let account = try privateCopy(Fixtures.fcmServiceAccount, name: "good-sa.json")
        r = try doctor(["--service-account", account, "--project", "another-project"])
        XCTAssertEqual(level(r.findings, "fcm.project"), "warning")

        let nothing = try ProcessRunner.pushlab(["doctor"], environment: env)
        XCTAssertEqual(nothing.status, 2, "nothing to check is a usage error")
        XCTAssertTrue(nothing.stderr.contains("profile add"), nothing.stderr)
    }

    func testOnlineChecksTrustAndClockAgainstTheEmulator() throws {
        let server = try LabServer()
        defer { server.stop() }
        let key = try privateCopy(Fixtures.apnsKey, name: "AuthKey_PLDEVKEY01.p8")
        let base = ["--key", key, "--team-id", Fixtures.apnsTeamID, "--url", server.apnsURL, "--online"]
        var r = try doctor(base + ["--ca-file", Fixtures.caFile])
        XCTAssertEqual(r.status, 0, "\(r.findings) \(r.stderr)")
        XCTAssertEqual(level(r.findings, "online.tls"), "ok")
        // The emulator sends its Date, so the documented clock check runs against it.
        XCTAssertEqual(level(r.findings, "online.clock"), "ok", "\(r.findings)")
        // Without the dev CA the emulator's certificate is not trusted: said, with the fix.
        r = try doctor(base)
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(level(r.findings, "online.tls"), "error")
        XCTAssertTrue(r.findings.first { $0.check == "online.tls" }?.fix?.contains("--ca-file") == true)
    }

    func testDoctorReadsTheCurrentProfile() throws {
        let key = try privateCopy(Fixtures.apnsKey, name: "AuthKey_PLDEVKEY01.p8")
        let add = try ProcessRunner.pushlab(["profile", "add", "app", "--key", key, "--team-id", Fixtures.apnsTeamID,
                                             "--bundle-id", "io.pushlab.demo.complication"], environment: env)
        XCTAssertEqual(add.status, 0, add.stderr)
        let r = try doctor([])
        XCTAssertEqual(level(r.findings, "apns.key"), "ok")
        XCTAssertEqual(level(r.findings, "apns.bundle-id"), "warning", "the profile's bundle id is checked")
    }
}

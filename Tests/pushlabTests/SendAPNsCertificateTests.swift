import Foundation
import TestSupport
import XCTest

/// Issue 25: certificate-based authentication end to end — `send apns --cert` against
/// `pushlab serve --apns-client-ca`, with curl as an independent client of the emulator.
final class SendAPNsCertificateTests: XCTestCase {
    private let token = "3a5fe9c1fd4e48aaffab16cf9b68867772ce802b5066deb902dbfbe2b419c372"
    private var directory: URL!

    override func setUp() { directory = Fixtures.temporaryDirectory("apns-cert") }
    override func tearDown() { try? FileManager.default.removeItem(at: directory) }

    private func serve(_ extra: [String] = ["--apns-client-ca", Fixtures.caFile]) throws -> (ServerProcess, String) {
        let server = try ServerProcess(["serve", "--port", "0", "--h2c-port", "0", "--apns-port", "0", "--quiet",
                                        "--cert", Fixtures.serverCert, "--key", Fixtures.serverKey] + extra) { $0.contains("quick start") }
        let port = try XCTUnwrap(server.port(after: "APNs: https://127.0.0.1:"), server.banner)
        return (server, "https://127.0.0.1:\(port)")
    }

    private func cert(_ name: String) -> String { Fixtures.path("certs/\(name)") }

    private func send(_ url: String, _ credentials: [String], topic: String = "io.pushlab.demo", extra: [String] = [],
                      environment: [String: String] = [:]) throws -> ProcessResult {
        try ProcessRunner.run("/usr/bin/env", environment.map { "\($0.key)=\($0.value)" } + [Fixtures.pushlabBinary, "send", "apns"] + credentials
                              + ["--url", url, "--ca-file", Fixtures.caFile, "--topic", topic, "--token", token, "--title", "hi",
                                 "--no-history", "--json", "--retries", "0"] + extra)
    }

    private func outcome(_ r: ProcessResult) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], r.stdout + r.stderr)
    }

    func testP12AndPEMCertificatesAreAcceptedWithoutAnAuthorizationHeader() throws {
        let (server, url) = try serve()
        defer { server.stop() }
        let password = directory.appendingPathComponent("pw").path
        try "pushlab-dev\n".write(toFile: password, atomically: true, encoding: .utf8)
        let p12 = try send(url, ["--cert", cert("apns-client.p12"), "--cert-password-file", password])
        XCTAssertEqual(p12.status, 0, p12.stdout + p12.stderr)
        XCTAssertEqual(try outcome(p12)["outcome"] as? String, "accepted")
        let fromEnvironment = try send(url, ["--cert", cert("apns-client.p12")], environment: ["PUSHLAB_CERT_PASSWORD": "pushlab-dev"])
        XCTAssertEqual(fromEnvironment.status, 0, fromEnvironment.stdout + fromEnvironment.stderr)
        let pem = try send(url, ["--cert", cert("apns-client.pem"), "--cert-key", cert("apns-client.key")], topic: "io.pushlab.demo.voip",
                           extra: ["--push-type", "voip"])
        XCTAssertEqual(pem.status, 0, pem.stdout + pem.stderr)
        // The same send with --verbose shows no authorization header went out.
        let verbose = try send(url, ["--cert", cert("apns-client.pem"), "--cert-key", cert("apns-client.key"), "--verbose"])
        XCTAssertEqual(verbose.status, 0)
        XCTAssertFalse(verbose.stderr.lowercased().contains("authorization"), verbose.stderr)
    }

    func testTheEmulatorAnswersWhatAPNsAnswersForBadCertificates() throws {
        let (server, url) = try serve()
        defer { server.stop() }
        // Caught before connecting (exit 2, with the fix) unless --no-validate; then the emulator answers.
        let other = try send(url, ["--cert", cert("apns-client.pem"), "--cert-key", cert("apns-client.key")], topic: "io.other.app")
        XCTAssertEqual(other.status, 2)
        XCTAssertTrue(other.stderr.contains("does not cover topic io.other.app") && other.stderr.contains("io.pushlab.demo.voip"), other.stderr)
        let sentAnyway = try send(url, ["--cert", cert("apns-client.pem"), "--cert-key", cert("apns-client.key"), "--no-validate"], topic: "io.other.app")
        XCTAssertEqual(sentAnyway.status, 1)
        XCTAssertEqual(try outcome(sentAnyway)["reason"] as? String, "TopicDisallowed")

        let expired = try send(url, ["--cert", cert("apns-client-expired.pem"), "--cert-key", cert("apns-client-expired.key")])
        XCTAssertEqual(expired.status, 2)
        XCTAssertTrue(expired.stderr.contains("expired"), expired.stderr)
        let expiredAnyway = try send(url, ["--cert", cert("apns-client-expired.pem"), "--cert-key", cert("apns-client-expired.key"), "--no-validate"])
        XCTAssertEqual(expiredAnyway.status, 1)
        XCTAssertEqual(try outcome(expiredAnyway)["reason"] as? String, "BadCertificate")
        XCTAssertTrue((try outcome(expiredAnyway)["fix"] as? String)?.contains("push certificate") == true, expiredAnyway.stdout)

        let untrusted = try send(url, ["--cert", cert("apns-client-untrusted.pem"), "--cert-key", cert("apns-client-untrusted.key")])
        XCTAssertEqual(untrusted.status, 1)
        XCTAssertEqual(try outcome(untrusted)["reason"] as? String, "BadCertificate")
    }

    func testASandboxCertificateToTheProductionEmulatorIsTheWrongEnvironment() throws {
        let (server, url) = try serve(["--apns-client-ca", Fixtures.caFile, "--production"])
        defer { server.stop() }
        let sandbox = try send(url, ["--cert", cert("apns-client-sandbox.pem"), "--cert-key", cert("apns-client-sandbox.key")])
        XCTAssertEqual(sandbox.status, 1, sandbox.stdout + sandbox.stderr)
        XCTAssertEqual(try outcome(sandbox)["reason"] as? String, "BadCertificateEnvironment")
        let both = try send(url, ["--cert", cert("apns-client.pem"), "--cert-key", cert("apns-client.key")])
        XCTAssertEqual(both.status, 0, both.stdout + both.stderr)
    }

    func testWithoutAClientCAACertificateIsNotAskedForAndTheTokenIsMissing() throws {
        let (server, url) = try serve([])
        defer { server.stop() }
        let r = try send(url, ["--cert", cert("apns-client.pem"), "--cert-key", cert("apns-client.key")])
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(try outcome(r)["reason"] as? String, "MissingProviderToken")
    }

    func testBadInputIsExitTwoAndThePasswordIsNeverPrinted() throws {
        let secret = "not-the-password-7Q"
        let wrong = try send("https://127.0.0.1:9", ["--cert", cert("apns-client.p12")], environment: ["PUSHLAB_CERT_PASSWORD": secret])
        XCTAssertEqual(wrong.status, 2)
        XCTAssertTrue(wrong.stderr.contains("password does not open it"), wrong.stderr)
        XCTAssertFalse((wrong.stdout + wrong.stderr).contains(secret))
        let missing = try send("https://127.0.0.1:9", ["--cert", cert("apns-client.p12")])
        XCTAssertEqual(missing.status, 2)
        XCTAssertTrue(missing.stderr.contains("--cert-password-file FILE") && missing.stderr.contains("PUSHLAB_CERT_PASSWORD"), missing.stderr)
        let both = try send("https://127.0.0.1:9", ["--cert", cert("apns-client.pem"), "--key", Fixtures.apnsKey, "--team-id", Fixtures.apnsTeamID])
        XCTAssertEqual(both.status, 2)
        XCTAssertTrue(both.stderr.contains("--key and --cert"), both.stderr)
        let orphan = try send("https://127.0.0.1:9", ["--cert-key", cert("apns-client.key"), "--key", Fixtures.apnsKey, "--team-id", Fixtures.apnsTeamID])
        XCTAssertEqual(orphan.status, 2)
        XCTAssertTrue(orphan.stderr.contains("--cert-key needs --cert"), orphan.stderr)
        let notACert = try send("https://127.0.0.1:9", ["--cert", Fixtures.apnsKey])
        XCTAssertEqual(notACert.status, 2)
        XCTAssertTrue(notACert.stderr.contains("--cert \(Fixtures.apnsKey)"), notACert.stderr)
    }

    func testCurlWithTheCertificateIsAnsweredLikeTheSender() throws {
        let (server, url) = try serve()
        defer { server.stop() }
        func curl(_ arguments: [String]) throws -> (status: String, body: String) {
            let r = try ProcessRunner.run("/usr/bin/curl", ["-s", "--http2", "--cacert", Fixtures.caFile, "-o", "-", "-w", "\n%{http_code}",
                                                            "-H", "apns-topic: io.pushlab.demo", "-H", "apns-push-type: alert",
                                                            "-d", #"{"aps":{"alert":"hi"}}"#] + arguments + ["\(url)/3/device/\(token)"])
            let lines = r.stdout.split(separator: "\n", omittingEmptySubsequences: false)
            return (String(lines.last ?? ""), lines.dropLast().joined(separator: "\n"))
        }
        let good = try curl(["--cert", cert("apns-client.pem"), "--key", cert("apns-client.key")])
        XCTAssertEqual(good.status, "200", good.body)
        let untrusted = try curl(["--cert", cert("apns-client-untrusted.pem"), "--key", cert("apns-client-untrusted.key")])
        XCTAssertEqual(untrusted.status, "403")
        XCTAssertTrue(untrusted.body.contains("BadCertificate"), untrusted.body)
        // A bearer token on a certificate connection decides (documented as unverified): a bad one is refused.
        let tokenWins = try curl(["--cert", cert("apns-client.pem"), "--key", cert("apns-client.key"), "-H", "authorization: bearer not.a.jwt"])
        XCTAssertEqual(tokenWins.status, "403")
        XCTAssertTrue(tokenWins.body.contains("InvalidProviderToken"), tokenWins.body)
    }
}

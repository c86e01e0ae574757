import Foundation
import PushCore
import PushGateway
import PushHTTP
import PushRelay
import TestSupport
import XCTest

/// Issue 25 item 2: a relay app authenticates to APNs with a provider certificate (`.p12` with
/// its password from a file or a variable, or PEM certificate + key) instead of a `.p8` key:
/// the same checks as `send apns --cert` at start-up, a real TLS client-certificate handshake
/// with the emulator (which trusts the dev CA), no `authorization` header, and a config
/// read-back with paths and fingerprints only.
final class RelayCertificateTests: XCTestCase {
    private let token = String(format: "%064x", 0xCE27)
    private let password = "pushlab-dev"
    private var directory: URL!
    private var gateway: Gateway?
    private var relay: Relay?
    private var client: HTTPClient?

    override func setUp() { directory = Fixtures.temporaryDirectory("relay-cert") }

    override func tearDown() async throws {
        await client?.shutdown()
        await relay?.stop()
        await gateway?.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    private func cert(_ name: String) -> String { Fixtures.path("certs/\(name)") }

    private func passwordFile(_ text: String) throws -> String {
        let file = directory.appendingPathComponent("p12.password").path
        try (text + "\n").write(toFile: file, atomically: true, encoding: .utf8)
        return file
    }

    private func config(_ apps: String) throws(RelayConfigError) -> RelayConfig {
        try RelayConfig.parse(Array(#"{"listen": {"port": 0}, "apps": {\#(apps)}}"#.utf8), source: "relay.json", baseDirectory: Fixtures.root.path)
    }

    /// The pointer and message of the error that stops the start, or a failure.
    private func refusal(_ apps: String, environment: [String: String] = [:], file: StaticString = #filePath,
                         line: UInt = #line) throws -> RelayConfigError? {
        do {
            _ = try Relay.loadCredentials(try config(apps), environment: environment)
            XCTFail("the relay would start", file: file, line: line)
            return nil
        } catch {
            XCTAssertFalse(error.fix.isEmpty, file: file, line: line)
            XCTAssertFalse(error.description.contains(password), "the password is never printed", file: file, line: line)
            return error
        }
    }

    func testP12AndPEMAppsPushThroughAClientCertificateHandshakeWithoutAnAuthorizationHeader() async throws {
        let devices = DeviceRegistry()
        devices.register(EmulatedDevice(name: "phone", apnsToken: token, bundleID: Fixtures.bundleID))
        var configuration = GatewayConfiguration(certificateFile: Fixtures.serverCert, privateKeyFile: Fixtures.serverKey)
        configuration.apnsClientCertificateCAFile = Fixtures.caFile
        let gateway = try Gateway(configuration: configuration, keys: try GatewayKeys.developmentDefaults(certsDirectory: Fixtures.path("certs")),
                                  devices: devices)
        self.gateway = gateway
        try gateway.start()
        let passwordFile = try passwordFile(password)
        let config = try config("""
            "p12": {"target": "emulator", "apns": {"certificate": "certs/apns-client.p12", "certificate_password_file": "\(passwordFile)",
                                                   "bundle_id": "\(Fixtures.bundleID)"}},
            "pem": {"target": "emulator", "apns": {"certificate": "certs/apns-client.pem", "certificate_key": "certs/apns-client.key",
                                                   "bundle_id": "\(Fixtures.bundleID)"}},
            "untrusted": {"target": "emulator", "apns": {"certificate": "certs/apns-client-untrusted.pem",
                                                         "certificate_key": "certs/apns-client-untrusted.key", "bundle_id": "\(Fixtures.bundleID)"}}
            """)
        let emulator = EmulatorEndpoints(apnsURL: gateway.apnsURL ?? "", fcmURL: gateway.fcmURL ?? "", tokenURL: gateway.tokenURL ?? "",
                                         caFile: Fixtures.caFile)
        let relay = try Relay(config: config, dataDirectory: directory.appendingPathComponent("data").path, emulator: emulator)
        self.relay = relay
        try await relay.start()
        let key = try await relay.keys.create(scope: .admin, label: "tests").key
        let client = try HTTPClient(configuration: HTTPClientConfiguration(protocolMode: .h2cPriorKnowledge))
        self.client = client
        let base = relay.addresses?.cleartextURL ?? ""

        func push(_ app: String, pushType: String = "alert") async throws -> JSONValue {
            let body = #"{"apns": {"payload": {"aps": {"alert": "hi \#(app)"}}, "push_type": "\#(pushType)"}, "apns_tokens": ["\#(token)"]}"#
            let accepted = try await client.send(HTTPRequest(method: "POST", url: base + "/v1/apps/\(app)/pushes",
                                                             headers: ["authorization": "Bearer \(key)"], body: Array(body.utf8)))
            XCTAssertEqual(accepted.status, 202, accepted.bodyText)
            let id = try JSONDocument.parse(accepted.body).root["id"]?.stringValue ?? ""
            let status = try await client.send(HTTPRequest(method: "GET", url: base + "/v1/pushes/\(id)?wait=10s",
                                                           headers: ["authorization": "Bearer \(key)"]))
            return try JSONDocument.parse(status.body).root
        }
        for app in ["p12", "pem"] {
            let status = try await push(app)
            XCTAssertEqual(status["sent"]?.numberValue?.intValue, 1, "\(app): \(status.minifiedString)")
        }
        let voip = try await push("pem", pushType: "voip")
        XCTAssertEqual(voip["sent"]?.numberValue?.intValue, 1, "the certificate's VoIP topic: \(voip.minifiedString)")
        XCTAssertTrue(try gateway.records.recent(limit: 100).contains { $0.topic == Fixtures.bundleID + ".voip" && $0.status == 200 })
        let untrusted = try await push("untrusted")
        XCTAssertEqual(untrusted["failed"]?.numberValue?.intValue, 1, untrusted.minifiedString)
        XCTAssertEqual(untrusted.value(at: "/results/0/reason")?.stringValue, "BadCertificate", "the emulator checked the chain: \(untrusted.minifiedString)")

        let records = try gateway.records.recent(limit: 100).filter { $0.service == .apns }
        XCTAssertEqual(records.filter { $0.status == 200 }.count, 3, "accepted only by certificate: no provider token was trusted for these requests")
        for record in records {
            XCTAssertNil(record.headers["authorization"], "a certificate connection sends no authorization header: \(record.headers)")
        }
    }

    func testTheConfigReadBackShowsThePathAndTheFingerprintOnly() async throws {
        let passwordFile = try passwordFile(password)
        let config = try config("""
            "p12": {"apns": {"certificate": "certs/apns-client.p12", "certificate_password_file": "\(passwordFile)",
                             "bundle_id": "\(Fixtures.bundleID)", "url": "https://127.0.0.1:9", "ca_file": "certs/ca.pem"}},
            "pem": {"apns": {"certificate": "certs/apns-client.pem", "certificate_key": "certs/apns-client.key",
                             "bundle_id": "\(Fixtures.bundleID)", "url": "https://127.0.0.1:9", "ca_file": "certs/ca.pem"}}
            """)
        let relay = try Relay(config: config, dataDirectory: directory.appendingPathComponent("data").path)
        self.relay = relay
        try await relay.start()
        let key = try await relay.keys.create(scope: .admin, label: "tests").key
        let client = try HTTPClient(configuration: HTTPClientConfiguration(protocolMode: .h2cPriorKnowledge))
        self.client = client
        let response = try await client.send(HTTPRequest(method: "GET", url: (relay.addresses?.cleartextURL ?? "") + "/v1/admin/config",
                                                         headers: ["authorization": "Bearer \(key)"]))
        XCTAssertEqual(response.status, 200, response.bodyText)
        let body = try JSONDocument.parse(response.body).root
        // The fingerprint as openssl computes it (an independent reader of the same certificate).
        let openssl = try ProcessRunner.run("/usr/bin/openssl", ["x509", "-in", cert("apns-client.pem"), "-noout", "-fingerprint", "-sha256"])
        let expected = String(openssl.stdout.split(separator: "=").last ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
            .replacingOccurrences(of: ":", with: "").lowercased()
        XCTAssertEqual(expected.count, 64, openssl.stdout + openssl.stderr)
        for (index, app) in ["p12", "pem"].enumerated() {
            let apns = try XCTUnwrap(body.value(at: JSONPointer(tokens: ["apps", "\(index)", "apns"])), response.bodyText)
            XCTAssertEqual(apns["certificate"]?["sha256"]?.stringValue, expected, "\(app): \(apns.minifiedString)")
            XCTAssertEqual(apns.value(at: "/certificate/topics/1")?.stringValue, Fixtures.bundleID + ".voip", apns.minifiedString)
            XCTAssertNil(apns["key"], "no .p8 key for a certificate app")
        }
        XCTAssertEqual(body.value(at: "/apps/0/apns/certificate_password_file")?.stringValue, passwordFile)
        XCTAssertEqual(body.value(at: "/apps/1/apns/certificate_key/path")?.stringValue, cert("apns-client.key"))
        XCTAssertFalse(response.bodyText.contains(password), "never the password")
        XCTAssertFalse(response.bodyText.contains("PRIVATE KEY"), "never the key")
    }

    func testStartUpRefusesWhatSendAPNsRefusesNamingTheAppAndTheField() throws {
        let pem = #""certificate": "certs/apns-client.pem", "certificate_key": "certs/apns-client.key""#
        let expired = try refusal(#""shop": {"apns": {"certificate": "certs/apns-client-expired.pem", "certificate_key": "certs/apns-client-expired.key", "bundle_id": "io.pushlab.demo"}}"#)
        XCTAssertEqual(expired?.pointer, "/apps/shop/apns/certificate")
        XCTAssertTrue(expired?.message.contains("expired on") == true, "\(String(describing: expired))")

        let sandboxOnly = try refusal(#""shop": {"apns": {"certificate": "certs/apns-client-sandbox.pem", "certificate_key": "certs/apns-client-sandbox.key", "bundle_id": "io.pushlab.demo", "environment": "production"}}"#)
        XCTAssertEqual(sandboxOnly?.pointer, "/apps/shop/apns/environment")
        XCTAssertTrue(sandboxOnly?.message.contains("for sandbox, not production") == true, "\(String(describing: sandboxOnly))")

        let otherApp = try refusal(#""news": {"apns": {\#(pem), "bundle_id": "com.example.news"}}"#)
        XCTAssertEqual(otherApp?.pointer, "/apps/news/apns/bundle_id")
        XCTAssertTrue(otherApp?.message.contains("does not cover topic com.example.news") == true, "\(String(describing: otherApp))")
        XCTAssertTrue(otherApp?.fix.contains("io.pushlab.demo.voip") == true, "the fix lists the certificate's topics: \(String(describing: otherApp))")

        let wrongPassword = try refusal(#""shop": {"apns": {"certificate": "certs/apns-client.p12", "certificate_password_file": "\#(try passwordFile("not-it"))", "bundle_id": "io.pushlab.demo"}}"#)
        XCTAssertEqual(wrongPassword?.pointer, "/apps/shop/apns/certificate_password_file")
        XCTAssertTrue(wrongPassword?.message.contains("password does not open it") == true, "\(String(describing: wrongPassword))")

        let unset = try refusal(#""shop": {"apns": {"certificate": "certs/apns-client.p12", "certificate_password_env": "SHOP_P12", "bundle_id": "io.pushlab.demo"}}"#)
        XCTAssertEqual(unset?.pointer, "/apps/shop/apns/certificate_password_env")
        XCTAssertTrue(unset?.message.contains("SHOP_P12 is not set") == true, "\(String(describing: unset))")
        // The same app starts when the variable holds the password.
        let fromVariable = try Relay.loadCredentials(try config(#""shop": {"apns": {"certificate": "certs/apns-client.p12", "certificate_password_env": "SHOP_P12", "bundle_id": "io.pushlab.demo"}}"#),
                                                     environment: ["SHOP_P12": password])
        XCTAssertTrue(fromVariable["shop"]?.apnsSummary?.contains("APNs certificate") == true)

        let wrongKey = try refusal(#""shop": {"apns": {"certificate": "certs/apns-client.pem", "certificate_key": "certs/apns-client-sandbox.key", "bundle_id": "io.pushlab.demo"}}"#)
        XCTAssertEqual(wrongKey?.pointer, "/apps/shop/apns/certificate_key")
    }

    func testTheConfigGivesOneWayToAuthenticate() {
        func pointer(_ apns: String) -> String? {
            do {
                _ = try config(#""shop": {"apns": {\#(apns), "bundle_id": "io.pushlab.demo"}}"#)
                return nil
            } catch {
                return error.pointer
            }
        }
        let key = #""key": "certs/AuthKey_PLDEVKEY01.p8", "key_id": "PLDEVKEY01", "team_id": "PLDEVTEAM1""#
        XCTAssertEqual(pointer(key + #", "certificate": "certs/apns-client.p12""#), "/apps/shop/apns/key", "a key and a certificate")
        XCTAssertEqual(pointer(#""certificate": "certs/apns-client.p12", "certificate_key": "certs/apns-client.key""#),
                       "/apps/shop/apns/certificate_key", "a .p12 holds its own key")
        XCTAssertEqual(pointer(#""certificate": "certs/apns-client.pem", "certificate_password_env": "X""#),
                       "/apps/shop/apns/certificate_password_env", "only a .p12 has a password")
        XCTAssertEqual(pointer(#""key_id": "PLDEVKEY01", "certificate_key": "certs/apns-client.key""#),
                       "/apps/shop/apns/certificate_key", "certificate fields without a certificate")
        XCTAssertEqual(pointer(#""bundle_id2": "x""#), "/apps/shop/apns/bundle_id2")
        XCTAssertEqual(pointer(#""team_id": "PLDEVTEAM1""#), "/apps/shop/apns/key", "neither a key nor a certificate")
        XCTAssertNil(pointer(#""certificate": "certs/apns-client.p12", "certificate_password_env": "X""#))
        XCTAssertNil(pointer(key))
    }
}

/// `pushlab relay` as a process with a certificate app: `--check` reports the certificate and
/// creates nothing (issue 18: no data directory); a certificate that cannot push stops the start
/// (exit 2, the app's field named); the built-in emulator asks for the client certificate.
final class RelayCertificateProcessTests: XCTestCase {
    private var directory: URL!
    private var processes: [ServerProcess] = []

    override func setUp() { directory = Fixtures.temporaryDirectory("relay-cert-process") }

    override func tearDown() {
        for p in processes { p.stop(grace: 5) }
        try? FileManager.default.removeItem(at: directory)
    }

    private func writeConfig(_ apns: String) throws -> String {
        let path = directory.appendingPathComponent("relay.json").path
        try Data(#"{"listen": {"port": 0}, "apps": {"shop": {"target": "emulator", "apns": {\#(apns), "bundle_id": "\#(Fixtures.bundleID)"}}}}"#.utf8)
            .write(to: URL(fileURLWithPath: path))
        return path
    }

    func testCheckReportsTheCertificateCreatesNothingAndABadCertificateStopsTheStart() throws {
        let data = directory.appendingPathComponent("data").path
        let certs = Fixtures.path("certs")
        let config = try writeConfig(#""certificate": "\#(certs)/apns-client.p12", "certificate_password_env": "SHOP_P12""#)
        let check = try ProcessRunner.pushlab(["relay", "--config", config, "--data", data, "--certs", certs, "--check"],
                                              environment: ["SHOP_P12": "pushlab-dev"])
        XCTAssertEqual(check.status, 0, check.stderr)
        XCTAssertTrue(check.stdout.contains("shop: APNs certificate \(certs)/apns-client.p12 (sha256 "), check.stdout)
        XCTAssertTrue(check.stdout.contains("sandbox and production, topics io.pushlab.demo io.pushlab.demo.voip"), check.stdout)
        XCTAssertTrue(check.stdout.contains("ok, 1 app, data \(data) (created at start)"), check.stdout)
        XCTAssertFalse((check.stdout + check.stderr).contains("pushlab-dev"), "the password is never printed")
        XCTAssertFalse(FileManager.default.fileExists(atPath: data), "--check creates no data directory")

        let expired = try writeConfig(#""certificate": "\#(certs)/apns-client-expired.pem", "certificate_key": "\#(certs)/apns-client-expired.key""#)
        for extra in [["--check"], []] {
            let refused = try ProcessRunner.pushlab(["relay", "--config", expired, "--data", data, "--certs", certs] + extra)
            XCTAssertEqual(refused.status, 2, refused.stdout + refused.stderr)
            XCTAssertTrue(refused.stderr.contains("\(expired) /apps/shop/apns/certificate:") && refused.stderr.contains("expired on"), refused.stderr)
            XCTAssertFalse(FileManager.default.fileExists(atPath: data), "a refused start creates nothing")
        }
    }

    func testTheBuiltInEmulatorTakesTheClientCertificate() throws {
        let data = directory.appendingPathComponent("data").path
        let certs = Fixtures.path("certs")
        let config = try writeConfig(#""certificate": "\#(certs)/apns-client.pem", "certificate_key": "\#(certs)/apns-client.key""#)
        let keys = try ProcessRunner.pushlab(["relay", "keys", "create", "--data", data, "--app", "shop"])
        XCTAssertEqual(keys.status, 0, keys.stderr)
        let key = keys.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let relay = try ServerProcess(["relay", "--config", config, "--data", data, "--certs", certs]) { $0.contains("relay: emulator") }
        processes.append(relay)
        let port = try XCTUnwrap(relay.port(after: "relay: listening on http://127.0.0.1:"), relay.stdout)
        let base = "http://127.0.0.1:\(port)"
        let body = #"{"apns": {"payload": {"aps": {"alert": "hi"}}}, "apns_tokens": ["\#(String(format: "%064x", 0xCE28))"]}"#
        let accepted = try ProcessRunner.run("/usr/bin/curl", ["-sS", "--http2-prior-knowledge", "--max-time", "30", base + "/v1/apps/shop/pushes",
                                                               "-H", "authorization: Bearer \(key)", "-d", body])
        let id = try XCTUnwrap(try JSONDocument.parse(Array(accepted.stdout.utf8)).root["id"]?.stringValue, accepted.stdout + accepted.stderr)
        let status = try ProcessRunner.run("/usr/bin/curl", ["-sS", "--http2-prior-knowledge", "--max-time", "30", base + "/v1/pushes/\(id)?wait=10s",
                                                             "-H", "authorization: Bearer \(key)"])
        let result = try JSONDocument.parse(Array(status.stdout.utf8)).root
        XCTAssertEqual(result["sent"]?.numberValue?.intValue, 1, status.stdout + "\n" + relay.stderr)
    }
}

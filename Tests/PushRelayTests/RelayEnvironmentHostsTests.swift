import Foundation
import PushCore
import PushGateway
import PushHTTP
import PushRelay
import TestSupport
import XCTest

/// `production` and `development` notifications in one gorush request each reach their own APNs
/// host — for an app whose `apns.url` names a host per environment, and for an app sent to the
/// built-in emulator when it plays each environment on its own host (docs/relay.md
/// "Configuration"). Two gateway emulators stand for Apple's sandbox and production hosts.
final class RelayEnvironmentHostsTests: XCTestCase {
    private var gateways: [Gateway] = []
    private var relay: Relay?
    private var client: HTTPClient?
    private var directory: URL!

    override func tearDown() async throws {
        await client?.shutdown()
        await relay?.stop()
        for g in gateways { await g.stop() }
        if let directory { try? FileManager.default.removeItem(at: directory) }
    }

    private func gateway(_ environment: TrustedAPNsKey.Restriction) throws -> Gateway {
        var configuration = GatewayConfiguration(certificateFile: Fixtures.serverCert, privateKeyFile: Fixtures.serverKey)
        configuration.environment = environment
        let g = try Gateway(configuration: configuration, keys: try GatewayKeys.developmentDefaults(certsDirectory: Fixtures.path("certs")),
                            devices: DeviceRegistry())
        try g.start()
        gateways.append(g)
        return g
    }

    private func accepted(by gateway: Gateway) throws -> Set<String> {
        Set(try gateway.records.recent(limit: 100).filter { $0.status == 200 }.compactMap(\.token))
    }

    func testProductionAndDevelopmentNotificationsReachTheirOwnHosts() async throws {
        let sandbox = try gateway(.sandboxOnly)
        let production = try gateway(.productionOnly)
        let apns = #""key": "certs/AuthKey_PLDEVKEY01.p8", "key_id": "\#(Fixtures.apnsKeyID)", "team_id": "\#(Fixtures.apnsTeamID)", "bundle_id": "\#(Fixtures.bundleID)""#
        let json = """
            {"listen": {"port": 0},
             "apps": {
               "hosts": {"apns": {\(apns), "ca_file": "certs/ca.pem",
                                  "url": {"sandbox": "\(sandbox.apnsURL ?? "")", "production": "\(production.apnsURL ?? "")"}}},
               "emu": {"target": "emulator", "apns": {\(apns)}}}}
            """
        let config = try RelayConfig.parse(Array(json.utf8), source: "relay.json", baseDirectory: Fixtures.root.path)
        XCTAssertEqual(config.app(named: "hosts")?.apns?.environmentURLs[.production], production.apnsURL)
        var emulator = EmulatorEndpoints(apnsURL: sandbox.apnsURL ?? "", fcmURL: sandbox.fcmURL ?? "", tokenURL: sandbox.tokenURL ?? "",
                                         caFile: Fixtures.caFile)
        emulator.apnsProductionURL = production.apnsURL
        directory = Fixtures.temporaryDirectory("relay-hosts")
        let relay = try Relay(config: config, dataDirectory: directory.path, emulator: emulator)
        self.relay = relay
        try await relay.start()
        let key = try await relay.keys.create(scope: .admin, label: "tests").key
        let client = try HTTPClient(configuration: HTTPClientConfiguration(protocolMode: .h2cPriorKnowledge))
        self.client = client

        var expectedSandbox: Set<String> = [], expectedProduction: Set<String> = []
        for (n, app) in ["hosts", "emu"].enumerated() {
            let prod = String(format: "%064x", 0xF000 + n * 2), dev = String(format: "%064x", 0xF001 + n * 2)
            expectedProduction.insert(prod)
            expectedSandbox.insert(dev)
            let body = #"{"notifications": [{"tokens": ["\#(prod)"], "platform": 1, "message": "p", "production": true}, {"tokens": ["\#(dev)"], "platform": 1, "message": "d", "development": true}]}"#
            let response = try await client.send(HTTPRequest(method: "POST", url: (relay.addresses?.cleartextURL ?? "") + "/gorush/\(app)/api/push?sync=true",
                                                             headers: ["authorization": "Bearer \(key)"], body: Array(body.utf8)))
            XCTAssertEqual(response.status, 200, response.bodyText)
            XCTAssertTrue(response.bodyText.contains(#""logs":[]"#), "every target sent: \(response.bodyText)")
        }
        XCTAssertEqual(try accepted(by: production), expectedProduction, "production notifications went to the production host only")
        XCTAssertEqual(try accepted(by: sandbox), expectedSandbox, "development notifications went to the sandbox host only")
    }

    func testAHostObjectNamesKnownEnvironmentsAndAtLeastOne() {
        func pointer(_ url: String) -> String? {
            let json = #"{"apps": {"a": {"apns": {"key": "certs/AuthKey_PLDEVKEY01.p8", "key_id": "K", "team_id": "T", "bundle_id": "b", "url": \#(url)}}}}"#
            do {
                _ = try RelayConfig.parse(Array(json.utf8), source: "relay.json", baseDirectory: Fixtures.root.path)
                return nil
            } catch {
                return error.pointer
            }
        }
        XCTAssertEqual(pointer(#"{"staging": "https://127.0.0.1:1"}"#), "/apps/a/apns/url/staging")
        XCTAssertEqual(pointer("{}"), "/apps/a/apns/url")
        XCTAssertEqual(pointer(#"{"production": "ftp://x"}"#), "/apps/a/apns/url/production")
        XCTAssertNil(pointer(#"{"production": "https://127.0.0.1:1"}"#))
    }
}

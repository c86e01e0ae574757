import Foundation
import PushAuth
import PushConsole
import PushCore
import PushGateway
import PushHTTP
import PushRelay
import TestSupport
import XCTest

/// The console on the relay's own HTTP server (`pushlab relay --console`): the relay's pushes
/// (accepted, each target's final result) reach the log through `RelayLogFeed`, beside the
/// built-in emulator's answers, over real HTTP/2 (h2c) with no API key on loopback.
final class ConsoleRelayTests: XCTestCase {
    static let good = String(format: "%064x", 0xC0FE)
    static let gone = String(format: "%064x", 0xDEAD)
    static let fcmToken = "rElAyCoNsOlE:APA91b" + String(repeating: "relayConsoleFCMRegistration_-", count: 5)

    private final class Setup: @unchecked Sendable {
        let directory = Fixtures.temporaryDirectory("console-relay")
        let console = Console(log: ConsoleLog(capacity: 1_000))
        let gateway: Gateway
        let relay: Relay
        let client: HTTPClient
        let key: String
        var base: String { (relay.addresses?.cleartextURL ?? "") }

        init(host: String = "127.0.0.1") async throws {
            let devices = DeviceRegistry()
            devices.register(EmulatedDevice(name: "phone", apnsToken: ConsoleRelayTests.good, bundleID: Fixtures.bundleID))
            devices.register(EmulatedDevice(name: "pixel", platform: .android, fcmToken: ConsoleRelayTests.fcmToken, bundleID: Fixtures.bundleID,
                                            firebaseProject: Fixtures.fcmProjectID))
            devices.register(EmulatedDevice(name: "gone", apnsToken: ConsoleRelayTests.gone, bundleID: Fixtures.bundleID,
                                            unregisteredSince: Date(timeIntervalSince1970: 1_700_000_000)))
            var gatewayConfig = GatewayConfiguration(certificateFile: Fixtures.serverCert, privateKeyFile: Fixtures.serverKey)
            gatewayConfig.recordObserver = console.gatewayFeed
            gateway = try Gateway(configuration: gatewayConfig, keys: try GatewayKeys.developmentDefaults(certsDirectory: Fixtures.path("certs")),
                                  devices: devices)
            try gateway.start()
            let json = """
                {"listen": {"host": "\(host)", "port": 0},
                 "apps": {"demo": {"target": "emulator",
                                   "apns": {"key": "certs/AuthKey_PLDEVKEY01.p8", "key_id": "\(Fixtures.apnsKeyID)", "team_id": "\(Fixtures.apnsTeamID)",
                                            "bundle_id": "\(Fixtures.bundleID)"},
                                   "fcm": {"service_account": "certs/fcm-service-account.json"}}}}
                """
            let config = try RelayConfig.parse(Array(json.utf8), source: "relay.json", baseDirectory: Fixtures.root.path)
            let emulator = EmulatorEndpoints(apnsURL: gateway.apnsURL ?? "", fcmURL: gateway.fcmURL ?? "", tokenURL: gateway.tokenURL ?? "",
                                             caFile: Fixtures.caFile)
            let console = console
            relay = try Relay(config: config, dataDirectory: directory.appendingPathComponent("data").path, emulator: emulator,
                              observer: RelayLogFeed(log: console.log)) { router in console.register(on: &router) }
            try await relay.start()
            key = try await relay.keys.create(scope: .app("demo"), label: "console tests").key
            client = try HTTPClient(configuration: HTTPClientConfiguration(protocolMode: .h2cPriorKnowledge))
        }

        func stop() async {
            console.stop()
            await client.shutdown()
            await relay.stop()
            await gateway.stop()
            try? FileManager.default.removeItem(at: directory)
        }

        func get(_ path: String) async throws -> HTTPResponse {
            try await client.send(HTTPRequest(method: "GET", url: base + path))
        }
    }

    func testTheRelaysAcceptedPushAndEachTargetsResultAppearInTheLog() async throws {
        let s = try await Setup()
        addTeardownBlock { await s.stop() }
        let body = #"{"apns": {"payload": {"aps": {"alert": "from the relay", "mutable-content": 1}, "CIO-Delivery-ID": "dlv-relay-1", "CIO-Delivery-Token": "t"}, "push_type": "alert"}, "apns_tokens": ["\#(Self.good)", "\#(Self.gone)"]}"#
        let posted = try await s.client.send(HTTPRequest(method: "POST", url: s.base + "/v1/apps/demo/pushes",
                                                         headers: ["authorization": "Bearer \(s.key)", "content-type": "application/json"],
                                                         body: Array(body.utf8)))
        XCTAssertEqual(posted.status, 202, posted.text)
        let pushID = try XCTUnwrap(posted.json["id"] as? String)

        // Search by the relay's push id finds its 202 row and both targets' final results.
        var rows: [[String: Any]] = []
        let complete = await Poll.until(timeout: 20) {
            rows = (try? await s.get("/console/api/pushes?q=\(pushID)"))?.json["pushes"] as? [[String: Any]] ?? []
            return rows.count == 3
        }
        XCTAssertTrue(complete, "\(rows)")
        XCTAssertTrue(rows.allSatisfy { $0["source"] as? String == "relay" && $0["relayPushID"] as? String == pushID }, "\(rows)")
        let accepted = try XCTUnwrap(rows.first { $0["status"] as? Int == 202 }, "\(rows)")
        XCTAssertEqual(accepted["messageID"] as? String, pushID)
        XCTAssertEqual(accepted["device"] as? String, "2 targets")
        XCTAssertEqual(accepted["deliveryID"] as? String, "dlv-relay-1")
        let sent = try XCTUnwrap(rows.first { $0["status"] as? Int == 200 }, "\(rows)")
        XCTAssertEqual(sent["target"] as? String, Redact.token(Self.good))
        XCTAssertTrue(APNsID.isCanonical(sent["messageID"] as? String ?? ""), "a sent target shows the apns-id the emulator gave")
        let failed = try XCTUnwrap(rows.first { $0["status"] as? Int == 410 }, "\(rows)")
        XCTAssertEqual(failed["reason"] as? String, "Unregistered")
        XCTAssertEqual(failed["target"] as? String, Redact.token(Self.gone))

        // The emulator's own answers are in the same log, as the gateway's.
        let all = try await s.get("/console/api/pushes?limit=100").json["pushes"] as? [[String: Any]] ?? []
        let gatewayRows = all.filter { $0["source"] as? String == "gateway" }
        XCTAssertEqual(gatewayRows.compactMap { $0["status"] as? Int }.sorted(), [200, 410], "\(all)")

        // A result row opens with the payload sent and the APNs options as headers.
        let detail = try await s.get("/console/api/pushes/\(sent["id"] as? Int ?? 0)")
        XCTAssertEqual(detail.status, 200)
        XCTAssertEqual((detail.json["headers"] as? [String: String])?["apns-topic"], Fixtures.bundleID)
        XCTAssertTrue((detail.json["payload"] as? String)?.contains("from the relay") == true, detail.text)
        let everything = try await s.get("/console/api/pushes?limit=100")
        XCTAssertFalse(everything.text.contains(Self.good), "the full token never reaches the page")
        XCTAssertFalse(everything.text.contains(s.key), "the API key never reaches the page")
    }

    func testAnFCMResultShowsItsMessageWithTheTargetShortenedAndValid() async throws {
        let s = try await Setup()
        addTeardownBlock { await s.stop() }
        let body = #"{"fcm": {"message": {"notification": {"title": "fcm via the relay"}}}, "fcm_tokens": ["\#(Self.fcmToken)"]}"#
        let posted = try await s.client.send(HTTPRequest(method: "POST", url: s.base + "/v1/apps/demo/pushes",
                                                         headers: ["authorization": "Bearer \(s.key)"], body: Array(body.utf8)))
        XCTAssertEqual(posted.status, 202, posted.text)
        let pushID = try XCTUnwrap(posted.json["id"] as? String)
        var result: [String: Any]?
        _ = await Poll.until(timeout: 20) {
            let rows = (try? await s.get("/console/api/pushes?q=\(pushID)"))?.json["pushes"] as? [[String: Any]] ?? []
            result = rows.first { $0["status"] as? Int == 200 }
            return result != nil
        }
        let row = try XCTUnwrap(result, "the FCM target's result never reached the log")
        XCTAssertEqual(row["platform"] as? String, "fcm")
        XCTAssertTrue((row["messageID"] as? String)?.hasPrefix("projects/\(Fixtures.fcmProjectID)/messages/") == true, "\(row)")
        let detail = try await s.get("/console/api/pushes/\(row["id"] as? Int ?? 0)")
        XCTAssertFalse(detail.text.contains(Self.fcmToken), "the whole registration token never reaches the page")
        let payload = try XCTUnwrap(detail.json["payload"] as? String)
        XCTAssertTrue(payload.contains(Redact.token(Self.fcmToken)) && payload.contains("fcm via the relay"), payload)
        let findings = (detail.json["validation"] as? [String: Any])?["findings"] as? [[String: Any]] ?? []
        XCTAssertEqual(findings.filter { $0["severity"] as? String == "error" }.count, 0, "the message as sent, with its target, is valid: \(findings)")
        // The gateway's own row of the same message: its body's token is shortened in the detail too.
        let fcmRows = try await s.get("/console/api/pushes?platform=fcm").json["pushes"] as? [[String: Any]] ?? []
        let gatewayRow = try XCTUnwrap(fcmRows.first { $0["source"] as? String == "gateway" }, "\(fcmRows)")
        let gatewayDetail = try await s.get("/console/api/pushes/\(gatewayRow["id"] as? Int ?? 0)")
        XCTAssertFalse(gatewayDetail.text.contains(Self.fcmToken), gatewayDetail.text)
    }

    func testTheLiveStreamCarriesTheRelaysRows() async throws {
        let s = try await Setup()
        addTeardownBlock { await s.stop() }
        let first = try await s.get("/console/api/events")
        XCTAssertEqual(first.headers["content-type"], "text/event-stream")
        let body = #"{"apns": {"payload": {"aps": {"alert": "live"}}}, "apns_tokens": ["\#(Self.good)"]}"#
        let posted = try await s.client.send(HTTPRequest(method: "POST", url: s.base + "/v1/apps/demo/pushes",
                                                         headers: ["authorization": "Bearer \(s.key)"], body: Array(body.utf8)))
        XCTAssertEqual(posted.status, 202, posted.text)
        // The browser's reconnect: everything after id 0, as one `pushes` event.
        let next = try await s.client.send(HTTPRequest(method: "GET", url: s.base + "/console/api/events", headers: ["last-event-id": "0"]))
        XCTAssertTrue(next.text.contains("event: pushes") && next.text.contains(#""source":"relay""#), next.text)
    }

    func testTheConsoleNeedsNoAPIKeyOnLoopbackAndRefusesOtherPeers() async throws {
        let s = try await Setup(host: "0.0.0.0")
        addTeardownBlock { await s.stop() }
        let port = try XCTUnwrap(s.relay.addresses?.cleartextPort)
        let page = try ProcessRunner.run("/usr/bin/curl", ["-s", "--max-time", "5", "-o", "/dev/null", "-w", "%{http_code}", "http://127.0.0.1:\(port)/console"])
        XCTAssertEqual(page.stdout, "200", "no Authorization header needed on loopback")
        let ip = try XCTUnwrap(NetworkAddresses.externalIPv4(), "no non-loopback IPv4 address on this machine")
        let remote = try ProcessRunner.run("/usr/bin/curl", ["-s", "--max-time", "5", "-w", "\n%{http_code}", "http://\(ip):\(port)/console/api/pushes"])
        XCTAssertTrue(remote.stdout.hasSuffix("\n403") && remote.stdout.contains("--console-remote"), remote.stdout)
        // The relay's own API still asks for its key from everywhere.
        let api = try ProcessRunner.run("/usr/bin/curl", ["-s", "--max-time", "5", "-o", "/dev/null", "-w", "%{http_code}", "http://\(ip):\(port)/v1/pushes/p_x"])
        XCTAssertEqual(api.stdout, "401")
    }
}

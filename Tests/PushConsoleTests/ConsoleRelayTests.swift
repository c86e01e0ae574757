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
    // Different first 8 characters: the page shows tokens shortened to those.
    static let good = "c0fec0fe" + String(format: "%056x", 0xC0FE)
    static let gone = "deaddead" + String(format: "%056x", 0xDEAD)
    static let fcmToken = "rElAyCoNsOlE:APA91b" + String(repeating: "relayConsoleFCMRegistration_-", count: 5)

    /// The relay with its console, for the tests of the relay console's own views.
    typealias SetupHandle = Setup

    final class Setup: @unchecked Sendable {
        static func make(access: ConsoleAccess? = nil) async throws -> Setup { try await Setup(access: access) }

        let directory = Fixtures.temporaryDirectory("console-relay")
        let console: Console
        let gateway: Gateway
        let relay: Relay
        let client: HTTPClient
        let key: String
        var base: String { (relay.addresses?.cleartextURL ?? "") }

        init(host: String = "127.0.0.1", access: ConsoleAccess? = nil) async throws {
            var consoleConfiguration = ConsoleConfiguration()
            consoleConfiguration.access = access
            console = Console(configuration: consoleConfiguration, log: ConsoleLog(capacity: 1_000))
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
            console.attach(relay: relay)
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

    /// A push to an APNs and an FCM target: its queued row shows the APNs payload, so it is
    /// labelled APNs and checked as an APNs payload (no false FCM errors); the count says mixed.
    func testAMixedPushIsLabelledByThePayloadItShowsAndChecksClean() async throws {
        let s = try await Setup()
        addTeardownBlock { await s.stop() }
        let body = #"{"apns": {"payload": {"aps": {"alert": "to both"}}}, "fcm": {"message": {"notification": {"title": "to both"}}}, "apns_tokens": ["\#(Self.good)"], "fcm_tokens": ["\#(Self.fcmToken)"]}"#
        let posted = try await s.client.send(HTTPRequest(method: "POST", url: s.base + "/v1/apps/demo/pushes",
                                                         headers: ["authorization": "Bearer \(s.key)"], body: Array(body.utf8)))
        XCTAssertEqual(posted.status, 202, posted.text)
        let pushID = try XCTUnwrap(posted.json["id"] as? String)
        var queued: [String: Any]?
        _ = await Poll.until(timeout: 20) {
            let rows = (try? await s.get("/console/api/pushes?q=\(pushID)"))?.json["pushes"] as? [[String: Any]] ?? []
            queued = rows.first { $0["status"] as? Int == 202 }
            return queued != nil
        }
        let row = try XCTUnwrap(queued, "the queued row never reached the log")
        XCTAssertEqual(row["platform"] as? String, "apns", "\(row)")
        XCTAssertEqual(row["device"] as? String, "2 targets (APNs + FCM)")
        let detail = try await s.get("/console/api/pushes/\(row["id"] as? Int ?? 0)")
        XCTAssertTrue((detail.json["payload"] as? String)?.contains("\"aps\"") == true, detail.text)
        let findings = (detail.json["validation"] as? [String: Any])?["findings"] as? [[String: Any]] ?? []
        XCTAssertEqual(findings.filter { $0["severity"] as? String == "error" }.count, 0, "the APNs payload is valid as APNs: \(findings)")
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

/// The relay's console beyond the log (`relay --console`): the send form posts through the
/// native API's own code (validated, queued, counted and observed like an API push; refusals
/// name their JSON pointer), the devices view (tokens delivered to, last result, the
/// invalid-token feed, shortened), and the counters `/metrics` exports; secrets never served.
final class ConsoleRelaySendTests: XCTestCase {
    private func post(_ s: ConsoleRelayTests.SetupHandle, _ path: String, _ body: String, headers: HTTPHeaders = [:]) async throws -> HTTPResponse {
        try await s.client.send(HTTPRequest(method: "POST", url: s.base + path, headers: headers, body: Array(body.utf8)))
    }

    func testTheSendFormQueuesThroughTheNativeAPIAndItsRefusalsNameThePointer() async throws {
        let s = try await ConsoleRelayTests.SetupHandle.make()
        addTeardownBlock { await s.stop() }
        let before = try await s.relay.queue.depth()

        // Refusals: the same answers as POST /v1/apps/{app}/pushes, and nothing queued.
        let badPayload = try await post(s, "/console/api/relay/apps/demo/pushes",
                                        #"{"apns": {"payload": {"aps": {"alert": {"title": 5}}}}, "targets": [{"apns": "\#(ConsoleRelayTests.good)"}]}"#)
        XCTAssertEqual(badPayload.status, 400, badPayload.text)
        XCTAssertEqual(badPayload.json["error"] as? String, "invalid_payload")
        XCTAssertEqual(badPayload.json["field"] as? String, "/apns/payload")
        let findings = badPayload.json["findings"] as? [[String: Any]] ?? []
        XCTAssertTrue(findings.contains { $0["pointer"] as? String == "/aps/alert/title" }, "\(findings)")
        let badToken = try await post(s, "/console/api/relay/apps/demo/pushes",
                                      #"{"apns": {"payload": {"aps": {"alert": "hi"}}}, "targets": [{"apns": "\#(ConsoleRelayTests.good)"}, {"apns": "xyz"}]}"#)
        XCTAssertEqual(badToken.status, 400, badToken.text)
        XCTAssertEqual(badToken.json["field"] as? String, "/targets/1/apns")
        let noTargets = try await post(s, "/console/api/relay/apps/demo/pushes", #"{"apns": {"payload": {"aps": {"alert": "hi"}}}, "targets": []}"#)
        XCTAssertEqual(noTargets.json["field"] as? String, "/targets", noTargets.text)
        let unknown = try await post(s, "/console/api/relay/apps/nope/pushes", #"{"apns": {"payload": {"aps": {"alert": "hi"}}}, "targets": [{"apns": "\#(ConsoleRelayTests.good)"}]}"#)
        XCTAssertEqual(unknown.status, 404, unknown.text)
        XCTAssertEqual(unknown.json["field"] as? String, "path app")
        let afterRefusals = try await s.relay.queue.depth()
        XCTAssertEqual(afterRefusals.waiting + afterRefusals.claimed + afterRefusals.finished,
                       before.waiting + before.claimed + before.finished, "a refused request queues nothing")

        // Accepted: a 202 with the relay's push id, queued, sent, counted and in the log like an API push.
        let body = #"{"apns": {"payload": {"aps": {"alert": {"title": "from the console"}}}}, "targets": [{"apns": "\#(ConsoleRelayTests.good)"}, {"apns": "\#(ConsoleRelayTests.gone)"}]}"#
        let posted = try await post(s, "/console/api/relay/apps/demo/pushes", body)
        XCTAssertEqual(posted.status, 202, posted.text)
        let pushID = try XCTUnwrap(posted.json["id"] as? String)
        XCTAssertTrue(pushID.hasPrefix("p_"), pushID)
        XCTAssertEqual(posted.json["targets"] as? Int, 2)
        let finished = await Poll.until(timeout: 20) { (try? await s.relay.queue.status(of: PushID(pushID), includeTargets: false))?.isFinished == true }
        XCTAssertTrue(finished, "the console's push was queued and finished by the relay's workers")
        let status = try await s.client.send(HTTPRequest(method: "GET", url: s.base + "/v1/pushes/\(pushID)", headers: ["authorization": "Bearer \(s.key)"]))
        XCTAssertEqual(status.status, 200, "the API reads the console's push like its own: \(status.text)")
        let rows = try await s.get("/console/api/pushes?q=\(pushID)").json["pushes"] as? [[String: Any]] ?? []
        XCTAssertEqual(rows.compactMap { $0["status"] as? Int }.sorted(), [200, 202, 410], "accepted row and each target's result: \(rows)")

        // The relay's metrics counted it as accepted (two targets) like any API push.
        let metrics = try await s.get("/console/api/relay/metrics")
        let demo = try XCTUnwrap((metrics.json["apps"] as? [[String: Any]])?.first { $0["app"] as? String == "demo" }, metrics.text)
        XCTAssertEqual(demo["accepted"] as? Int, 2, metrics.text)
    }

    func testTheSendFormNeedsTheConsolesAccessToken() async throws {
        let access = try ConsoleAccess(token: "relay-console-token-\(UUID().uuidString)")
        let s = try await ConsoleRelayTests.SetupHandle.make(access: access)
        addTeardownBlock { await s.stop() }
        let body = #"{"apns": {"payload": {"aps": {"alert": "hi"}}}, "targets": [{"apns": "\#(ConsoleRelayTests.good)"}]}"#
        let without = try await post(s, "/console/api/relay/apps/demo/pushes", body)
        XCTAssertEqual(without.status, 401, without.text)
        let apiKey = try await post(s, "/console/api/relay/apps/demo/pushes", body, headers: ["authorization": "Bearer \(s.key)"])
        XCTAssertEqual(apiKey.status, 401, "an app's API key is not the console's token: \(apiKey.text)")
        for path in ["/console/api/relay", "/console/api/relay/devices?app=demo", "/console/api/relay/metrics"] {
            let r = try await s.get(path)
            XCTAssertEqual(r.status, 401, "\(path): \(r.text)")
        }
        let depth = try await s.relay.queue.depth()
        XCTAssertEqual(depth.waiting + depth.claimed + depth.finished, 0, "refused requests queue nothing")
        let with = try await post(s, "/console/api/relay/apps/demo/pushes", body, headers: ["authorization": "Bearer \(access.token)"])
        XCTAssertEqual(with.status, 202, with.text)
    }

    func testDevicesShowTokensDeliveredToTheirLastResultAndTheInvalidOnesShortened() async throws {
        let s = try await ConsoleRelayTests.SetupHandle.make()
        addTeardownBlock { await s.stop() }
        let body = #"{"apns": {"payload": {"aps": {"alert": "devices"}}}, "apns_tokens": ["\#(ConsoleRelayTests.good)", "\#(ConsoleRelayTests.gone)"], "fcm": {"message": {"notification": {"title": "devices"}}}, "fcm_tokens": ["\#(ConsoleRelayTests.fcmToken)"]}"#
        for _ in 0..<2 {
            let posted = try await s.client.send(HTTPRequest(method: "POST", url: s.base + "/v1/apps/demo/pushes",
                                                             headers: ["authorization": "Bearer \(s.key)"], body: Array(body.utf8)))
            XCTAssertEqual(posted.status, 202, posted.text)
            let id = try XCTUnwrap(posted.json["id"] as? String)
            let done = await Poll.until(timeout: 20) { (try? await s.relay.queue.status(of: PushID(id), includeTargets: false))?.isFinished == true }
            XCTAssertTrue(done)
        }
        let devices = try await s.get("/console/api/relay/devices?app=demo")
        XCTAssertEqual(devices.status, 200, devices.text)
        let tokens = devices.json["tokens"] as? [[String: Any]] ?? []
        XCTAssertEqual(tokens.count, 3, "each target once: \(tokens)")
        let good = try XCTUnwrap(tokens.first { $0["token"] as? String == Redact.token(ConsoleRelayTests.good) }, "\(tokens)")
        XCTAssertEqual(good["status"] as? String, "sent")
        XCTAssertEqual(good["results"] as? Int, 2)
        XCTAssertEqual(good["sent"] as? Int, 2)
        XCTAssertTrue(APNsID.isCanonical(good["providerID"] as? String ?? ""), "\(good)")
        let gone = try XCTUnwrap(tokens.first { $0["token"] as? String == Redact.token(ConsoleRelayTests.gone) }, "\(tokens)")
        XCTAssertEqual(gone["status"] as? String, "failed")
        XCTAssertEqual(gone["reason"] as? String, "Unregistered")
        XCTAssertEqual(gone["httpStatus"] as? Int, 410)
        let fcm = try XCTUnwrap(tokens.first { $0["kind"] as? String == "fcm" }, "\(tokens)")
        XCTAssertEqual(fcm["token"] as? String, Redact.token(ConsoleRelayTests.fcmToken))
        let invalid = devices.json["invalidTokens"] as? [[String: Any]] ?? []
        XCTAssertTrue(invalid.contains { $0["token"] as? String == Redact.token(ConsoleRelayTests.gone) && $0["reason"] as? String == "Unregistered" }, "\(invalid)")
        XCTAssertFalse(invalid.contains { $0["token"] as? String == Redact.token(ConsoleRelayTests.good) })
        for full in [ConsoleRelayTests.good, ConsoleRelayTests.gone, ConsoleRelayTests.fcmToken] {
            XCTAssertFalse(devices.text.contains(full), "a whole token never reaches the page")
        }
        let unknown = try await s.get("/console/api/relay/devices?app=nope")
        XCTAssertEqual(unknown.status, 400, unknown.text)
        XCTAssertEqual(unknown.json["field"] as? String, "app")
    }

    func testMetricsAreTheCountersMetricsExportsAndNoSecretIsServed() async throws {
        let s = try await ConsoleRelayTests.SetupHandle.make()
        addTeardownBlock { await s.stop() }
        let body = #"{"apns": {"payload": {"aps": {"alert": "metrics"}}}, "apns_tokens": ["\#(ConsoleRelayTests.good)", "\#(ConsoleRelayTests.good)", "\#(ConsoleRelayTests.gone)"]}"#
        let posted = try await s.client.send(HTTPRequest(method: "POST", url: s.base + "/v1/apps/demo/pushes",
                                                         headers: ["authorization": "Bearer \(s.key)"], body: Array(body.utf8)))
        let id = try XCTUnwrap(posted.json["id"] as? String, posted.text)
        let done = await Poll.until(timeout: 20) { (try? await s.relay.queue.status(of: PushID(id), includeTargets: false))?.isFinished == true }
        XCTAssertTrue(done)
        let admin = try await s.relay.keys.create(scope: .admin, label: "metrics").key
        let prometheus = try await s.client.send(HTTPRequest(method: "GET", url: s.base + "/metrics", headers: ["authorization": "Bearer \(admin)"])).text
        func exported(_ line: String) -> Int? {
            prometheus.split(separator: "\n").first { $0.hasPrefix(line + " ") }.flatMap { Int($0.split(separator: " ").last ?? "") }
        }
        let m = try await s.get("/console/api/relay/metrics")
        XCTAssertEqual(m.status, 200, m.text)
        let demo = try XCTUnwrap((m.json["apps"] as? [[String: Any]])?.first { $0["app"] as? String == "demo" }, m.text)
        XCTAssertEqual(demo["sent"] as? Int, 2)
        XCTAssertEqual(demo["sent"] as? Int, exported(#"pushlab_relay_sent_total{app="demo",platform="apns"}"#), prometheus)
        XCTAssertEqual(demo["accepted"] as? Int, exported(#"pushlab_relay_accepted_targets_total{app="demo",platform="apns"}"#))
        XCTAssertEqual(demo["failed"] as? Int, 1)
        XCTAssertEqual(demo["failed"] as? Int, exported(#"pushlab_relay_failed_total{app="demo",platform="apns",reason="Unregistered"}"#))
        XCTAssertEqual((demo["failedByReason"] as? [String: Int])?["Unregistered"], 1)
        let queue = try XCTUnwrap(m.json["queue"] as? [String: Any], m.text)
        XCTAssertEqual(queue["finished"] as? Int, exported(#"pushlab_relay_queue_targets{state="finished"}"#))
        XCTAssertEqual(queue["waiting"] as? Int, 0)

        // Nothing the relay's console serves carries a key, a private key or a whole token.
        let overview = try await s.get("/console/api/relay")
        XCTAssertEqual(overview.status, 200)
        let apps = overview.json["apps"] as? [[String: Any]] ?? []
        XCTAssertEqual(apps.first?["apnsTopic"] as? String, Fixtures.bundleID, overview.text)
        XCTAssertEqual(apps.first?["apnsTarget"] as? String, "emulator")
        let keyFile = try String(contentsOfFile: Fixtures.path("certs/AuthKey_PLDEVKEY01.p8"), encoding: .utf8)
        let keyBody = keyFile.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
        for path in ["/console/api/relay", "/console/api/relay/devices?app=demo", "/console/api/relay/metrics", "/console/api/status",
                     "/console/api/pushes?limit=100", "/console", "/console/app.js"] {
            let text = try await s.get(path).text
            for secret in [s.key, admin, ConsoleRelayTests.good, ConsoleRelayTests.gone, String(keyBody.prefix(40)), "PRIVATE KEY", "eyJ"] {
                XCTAssertFalse(text.contains(secret), "\(path) serves \(secret.prefix(12))…")
            }
        }
    }
}

import Foundation
import OfflineLab
import PushAuth
import PushCore
import PushDevice
import PushGateway
import PushHTTP
import PushSend
import TestSupport
import XCTest

/// Broadcasts and Live Activity pushes end to end: pushlab's senders → the gateway emulator over
/// HTTP/2 + TLS → the virtual iPhones' activities (OfflineLab's fleet).
final class LiveActivityBroadcastTests: XCTestCase {
    var gateway: Gateway!
    var fleet: LiveActivityFleet!
    var http: HTTPClient!
    var credential: ProviderTokenCache!
    var dir: URL!

    override func setUp() async throws {
        dir = Fixtures.temporaryDirectory("live")
        let channels = BroadcastChannelRegistry()
        fleet = LiveActivityFleet(channels: channels)
        let config = GatewayConfiguration(certificateFile: Fixtures.serverCert, privateKeyFile: Fixtures.serverKey)
        gateway = try Gateway(configuration: config, keys: try GatewayKeys.developmentDefaults(certsDirectory: Fixtures.path("certs")),
                              devices: DeviceRegistry(), sink: fleet, broadcastSink: fleet, channels: channels)
        try gateway.start()
        http = try HTTPClient(configuration: HTTPClientConfiguration(caFile: Fixtures.caFile))
        credential = ProviderTokenCache(key: try APNsAuthKey.load(path: Fixtures.apnsKey, teamID: Fixtures.apnsTeamID))
    }

    override func tearDown() async throws {
        await http?.shutdown()
        await gateway?.stop()
        try? FileManager.default.removeItem(at: dir)
    }

    func channelClient() throws -> BroadcastChannelClient {
        BroadcastChannelClient(management: try .custom(gateway.apnsURL!), push: try .custom(gateway.apnsURL!), transport: http, credential: credential)
    }

    /// Polls until `condition` holds or 10 s pass (deliveries are asynchronous).
    func eventually(_ condition: () -> Bool) async throws -> Bool {
        let deadline = Date().addingTimeInterval(10)
        while !condition() {
            if Date() > deadline { return false }
            try await Task.sleep(for: .milliseconds(5))
        }
        return true
    }

    func testABroadcastReachesTheThreeSubscribedPhonesAndNotTheUnsubscribedOne() async throws {
        let c = try channelClient()
        guard case .success(let channel, _) = await c.create(bundleID: Fixtures.bundleID, policy: .noStorage) else { return XCTFail("create") }
        for i in 1...3 {
            guard case .success = fleet.startActivity(device: "phone-\(i)", attributesType: "Score", attributes: [:], contentState: ["home": 0],
                                                      channelID: channel) else { return XCTFail("subscribe") }
        }
        _ = fleet.startActivity(device: "phone-4", attributesType: "Score", attributes: [:], contentState: ["home": 0], wantsPushToken: true)
        let now = Int(Date().timeIntervalSince1970) + 5
        let payload = Array(#"{"aps":{"event":"update","timestamp":\#(now),"content-state":{"home":1}}}"#.utf8)
        guard case .success = await c.broadcast(bundleID: Fixtures.bundleID, channelID: channel, payload: payload, expiration: 0) else {
            return XCTFail("broadcast")
        }
        let reached = try await eventually { fleet.applied == 3 }
        XCTAssertTrue(reached, "applied \(fleet.applied)")
        for host in fleet.devices {
            let home = host.snapshot[0].contentState["home"]?.numberValue?.intValue
            XCTAssertEqual(home, host.deviceName == "phone-4" ? 0 : 1, host.deviceName)
        }
    }

    func testALateSubscriberOfAMostRecentChannelGetsTheStoredUpdate() async throws {
        let c = try channelClient()
        guard case .success(let channel, _) = await c.create(bundleID: Fixtures.bundleID, policy: .mostRecentMessage) else { return XCTFail("create") }
        let now = Int(Date().timeIntervalSince1970) + 5
        let payload = Array(#"{"aps":{"event":"update","timestamp":\#(now),"content-state":{"home":3}}}"#.utf8)
        guard case .success = await c.broadcast(bundleID: Fixtures.bundleID, channelID: channel, payload: payload, expiration: now + 3600) else {
            return XCTFail("broadcast")
        }
        guard case .success(let events) = fleet.startActivity(device: "late", attributesType: "Score", attributes: [:], contentState: ["home": 0],
                                                              channelID: channel) else { return XCTFail("subscribe") }
        XCTAssertEqual(events.map(\.kind), [.started, .subscribed, .updated])
        XCTAssertEqual(fleet.device(named: "late").snapshot[0].contentState["home"]?.numberValue?.intValue, 3)
    }

    func testPushToStartThroughFCMWithLiveActivityTokenStartsTheActivity() async throws {
        let phone = fleet.device(named: "fcm-phone")
        let saPath = try Fixtures.fcmServiceAccount(tokenURI: gateway.tokenURL!, in: dir)
        let account = try ServiceAccount.load(path: saPath)
        let client = FCMClient(baseURL: gateway.fcmURL!, projectID: account.projectID, transport: http,
                               credential: OAuthTokenSource(account: account, transport: http), retry: .none)
        let now = Int(Date().timeIntervalSince1970)
        let body = #"{"message":{"apns":{"live_activity_token":"\#(phone.pushToStartToken)","headers":{"apns-priority":"10"},"payload":{"aps":{"event":"start","timestamp":\#(now),"attributes-type":"DeliveryAttributes","attributes":{"orderID":"A1"},"content-state":{"status":"placed"},"alert":{"title":"Order","body":"placed"}}}}}}"#
        let message = try PreparedFCMMessage(document: try JSONDocument.parse(Array(body.utf8)), validateOnly: false)
        let fcmToken = "dGVzdC1pbnN0YW5jZS1pZA:APA91b" + String(repeating: "Xy9_-Q", count: 24)
        let sent = await client.send(message, to: .token(fcmToken))
        guard case .accepted = sent.outcome else { return XCTFail("\(sent.outcome)") }
        let started = try await eventually { !phone.snapshot.isEmpty }
        XCTAssertTrue(started)
        XCTAssertEqual(phone.snapshot.first?.attributesType, "DeliveryAttributes")

        let empty = #"{"message":{"apns":{"live_activity_token":"","payload":{"aps":{"event":"update","timestamp":1,"content-state":{}}}}}}"#
        // Sent unchecked (as --no-validate does), so the emulator's own answer is what is tested.
        let refused = await client.send(try PreparedFCMMessage(document: try JSONDocument.parse(Array(empty.utf8)), validateOnly: false, validate: false),
                                        to: .token(fcmToken))
        guard case .rejected(let error) = refused.outcome else { return XCTFail("an empty live_activity_token is INVALID_ARGUMENT: \(refused.outcome)") }
        XCTAssertEqual(error.httpStatus, 400)
    }

    func testAnAPNsUpdateToTheActivityTokenIsAppliedAndAnOlderOneDropped() async throws {
        guard case .success = fleet.startActivity(device: "p", attributesType: "Score", attributes: [:], contentState: ["home": 0],
                                                  wantsPushToken: true) else { return XCTFail("start") }
        let token = try XCTUnwrap(fleet.device(named: "p").snapshot[0].pushToken)
        let apns = APNsClient(endpoint: try .custom(gateway.apnsURL!), transport: http, credential: credential, retry: .none)
        let now = Int(Date().timeIntervalSince1970)
        for (ts, home) in [(now + 20, 2), (now + 10, 1)] {
            let push = try PreparedAPNsPush(payload: Array(#"{"aps":{"event":"update","timestamp":\#(ts),"content-state":{"home":\#(home)}}}"#.utf8),
                                            options: APNsPushOptions(topic: Fixtures.bundleID, pushType: .liveactivity))
            let r = await apns.send(push, to: token)
            XCTAssertTrue(r.isAccepted, "\(r.outcome)")
        }
        let host = fleet.device(named: "p")
        let dropped = try await eventually { host.events.contains { $0.kind == .dropped } }
        XCTAssertTrue(dropped)
        XCTAssertEqual(host.snapshot[0].contentState["home"]?.numberValue?.intValue, 2)
    }
}

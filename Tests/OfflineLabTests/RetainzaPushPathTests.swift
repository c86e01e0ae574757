import Foundation
import PushCore
import PushDevice
import PushHTTP
import PushRelay
import TestSupport
import XCTest
@testable import OfflineLab

/// docs/retainza.md "The push path": campaign pushes go through the FCM client and the
/// gateway's FCM route to a virtual iPhone with the Retainza SDK; the handlers run on arrival
/// and on tap (warm, cold with and without handleLaunchOptions); the collector counts the acks.
final class RetainzaPushPathTests: XCTestCase {
    private var work: URL!
    private var lab: Lab!

    override func setUp() async throws {
        work = Fixtures.temporaryDirectory("retainza-push")
        lab = try Lab(configuration: LabConfiguration(certsDirectory: Fixtures.path("certs"), assetsDirectory: Fixtures.path("payloads/assets"),
                                                      workDirectory: work))
        try lab.start()
    }

    override func tearDown() async throws {
        await lab?.stop()
        try? FileManager.default.removeItem(at: work)
    }

    private func profile(_ file: String) throws -> RetainzaAppProfile {
        try RetainzaAppProfile.load(path: Fixtures.path("payloads/apps/\(file)"))
    }

    /// Sends one campaign push through FCM and waits until the phone handled it.
    private func push(_ id: String) async throws -> [RetainzaServer.Delivery] {
        let deliveries = try await lab.retainzaServer().send(messageID: id, title: "Sale", body: id)
        await lab.retainzaFleet.waitUntilIdle()
        return deliveries
    }

    private func acks() throws -> [String] {
        try lab.collector.retainza.store.requests().filter { $0.route == "ack" && $0.status == 200 }
            .map { "\($0.messageID ?? "?"):\($0.action ?? "?")" }
    }

    func testHandlersRunOnArrivalAndOnWarmAndColdTaps() async throws {
        let phone = lab.addRetainzaPhone(name: "iphone-rz", profile: try profile("retainza-demo.json"))
        await phone.launch()
        let registered = try lab.collector.retainza.store.devices()
        XCTAssertEqual(registered.map(\.token), [phone.profile.fcmToken], "the FCM token is registered, never the APNs token")

        // Foreground: willPresent → handleForeground.
        let first = try await push("m-fg")
        XCTAssertEqual(first.map(\.accepted), [true])
        let arrival = try XCTUnwrap(lab.retainzaFleet.arrivals.last)
        XCTAssertEqual(arrival.messageID, "m-fg")
        XCTAssertEqual(arrival.outcome.handler, "handleForeground")

        // Background: shown by iOS; a warm tap reaches didReceive → handleOpen.
        await phone.toBackground()
        _ = try await push("m-warm")
        XCTAssertNil(lab.retainzaFleet.arrivals.last?.outcome.handler)
        let warm = await phone.tap(try XCTUnwrap(lab.retainzaFleet.arrivals.last?.userInfo))
        XCTAssertEqual(warm.handler, "handleOpen")
        XCTAssertTrue(warm.counted)

        // Killed: the tap launches the app; handleLaunchOptions counts it.
        await phone.kill()
        _ = try await push("m-cold")
        let cold = await phone.tap(try XCTUnwrap(lab.retainzaFleet.arrivals.last?.userInfo))
        XCTAssertEqual(cold.handler, "handleLaunchOptions")
        XCTAssertTrue(cold.counted)
        XCTAssertEqual(try acks(), ["m-fg:received", "m-warm:opened", "m-cold:opened"])
    }

    /// The relay's native API sends the same Retainza message to the FCM token through the
    /// emulator: it reaches the phone and handleForeground acks it.
    func testAPushSentByTheRelayToTheFCMTokenReachesTheRetainzaPhone() async throws {
        let phone = lab.addRetainzaPhone(name: "iphone-rz", profile: try profile("retainza-demo.json"))
        await phone.launch()
        let certs = lab.configuration.certsDirectory
        let json = #"{"listen": {"port": 0}, "apps": {"shop": {"target": "emulator", "fcm": {"service_account": "fcm-service-account.json"}}}}"#
        let relay = try Relay(config: try RelayConfig.parse(Array(json.utf8), source: "relay.json", baseDirectory: certs),
                              dataDirectory: work.appendingPathComponent("relay").path,
                              emulator: EmulatorEndpoints(apnsURL: lab.gateway.apnsURL ?? "", fcmURL: lab.gateway.fcmURL ?? "",
                                                          tokenURL: lab.gateway.tokenURL ?? "", caFile: certs + "/ca.pem"))
        try await relay.start()
        let key = try await relay.keys.create(scope: .app("shop"), label: "test").key
        let body = #"{"fcm": {"message": {"data": {"rz_message_id": "m-relay"}, "apns": {"payload": {"aps": {"alert": {"title": "Sale"}}}}}}, "fcm_tokens": ["\#(phone.profile.fcmToken)"]}"#
        var headers = HTTPHeaders()
        headers.add("authorization", "Bearer \(key)")
        headers.add("content-type", "application/json")
        let base = try XCTUnwrap(relay.addresses?.cleartextURL)
        let response = try await lab.client.send(HTTPRequest(method: "POST", url: base + "/v1/apps/shop/pushes", headers: headers, body: Array(body.utf8)))
        XCTAssertEqual(response.status, 202, String(decoding: response.body, as: UTF8.self))
        let id = try XCTUnwrap(try JSONDocument.parse(response.body).root.objectValue?["id"]?.stringValue, String(decoding: response.body, as: UTF8.self))
        let done = try await lab.client.send(HTTPRequest(method: "GET", url: base + "/v1/pushes/\(id)?wait=10s", headers: headers))
        XCTAssertEqual(done.status, 200)
        await relay.stop()
        await lab.retainzaFleet.waitUntilIdle()
        let arrival = try XCTUnwrap(lab.retainzaFleet.arrivals.last, String(decoding: done.body, as: UTF8.self))
        XCTAssertEqual(arrival.messageID, "m-relay")
        XCTAssertEqual(arrival.outcome.handler, "handleForeground")
        XCTAssertEqual(try acks(), ["m-relay:received"])
    }

    func testAColdStartOpenIsLostWithoutHandleLaunchOptions() async throws {
        let phone = lab.addRetainzaPhone(name: "iphone-rz", profile: try profile("retainza/no-launch-options.json"))
        await phone.launch()
        await phone.kill()
        _ = try await push("m-cold")
        let cold = await phone.tap(try XCTUnwrap(lab.retainzaFleet.arrivals.last?.userInfo))
        XCTAssertEqual(cold.lost, .missingHandleLaunchOptions)
        XCTAssertEqual(try acks(), [], "pushes arrive, opens are zero")
        // The same app counts a warm tap.
        await phone.toBackground()
        _ = try await push("m-warm")
        let warm = await phone.tap(try XCTUnwrap(lab.retainzaFleet.arrivals.last?.userInfo))
        XCTAssertTrue(warm.counted)
    }

    func testTheRawAPNsTokenFailsEndToEnd() async throws {
        // Today's SDK: handleDeviceToken logs the warning and registers nothing.
        let phone = lab.addRetainzaPhone(name: "iphone-rz", profile: try profile("retainza/device-token.json"))
        await phone.launch()
        let timeline = await phone.timeline
        XCTAssertTrue(timeline.contains { $0.kind == "warning" && $0.text.contains("handleDeviceToken no longer registers") },
                      timeline.map(\.text).joined(separator: "\n"))
        XCTAssertEqual(try lab.collector.retainza.store.devices().count, 0, "nothing registered")
        let none = try await push("m-none")
        XCTAssertTrue(none.isEmpty, "no registration, nothing to send to")

        // An older build registered the raw APNs token: the server sends it through FCM, FCM
        // refuses it (INVALID_ARGUMENT) and the server prunes the device.
        let olderBuild = try RetainzaSDK(profile: phone.profile, storage: RetainzaMemoryStorage(), transport: lab.deviceTransport,
                                         clock: SystemTimeSource(), userProvider: { "user-123" })
        let old = try await olderBuild.registerPush(token: phone.profile.apnsToken)
        XCTAssertEqual(old, .delivered(status: 200))
        let sent = try await push("m-apns")
        XCTAssertEqual(sent.count, 1)
        XCTAssertFalse(sent[0].accepted)
        XCTAssertEqual(sent[0].reason, "INVALID_ARGUMENT")
        XCTAssertTrue(sent[0].pruned, "\(sent[0].detail ?? "")")
        XCTAssertEqual(try lab.collector.retainza.store.devices().first?.prunedReason, "INVALID_ARGUMENT")
        XCTAssertTrue(lab.retainzaFleet.arrivals.isEmpty, "the device never received a push")
        let again = try await push("m-after-prune")
        XCTAssertTrue(again.isEmpty, "a pruned device is not sent to again")
    }
}

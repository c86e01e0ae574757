import Foundation
import PushCore
import PushDevice
import PushHTTP
import TestSupport
import XCTest

/// The virtual Android phone's receive path (docs/specs/android-side.md §1–3) against a real
/// HTTPS server (images and the metric capture) on a free port.
final class AndroidReceiveTests: XCTestCase {
    var server: ImageTestServer!
    var client: HTTPClient!
    var filesDir: URL!

    override func setUp() async throws {
        server = try ImageTestServer(stall: .seconds(3))
        client = try HTTPClient(configuration: HTTPClientConfiguration(caFile: Fixtures.caFile))
        filesDir = Fixtures.temporaryDirectory("android-files")
    }

    override func tearDown() async throws {
        await client.shutdown()
        await server.stop()
        try? FileManager.default.removeItem(at: filesDir)
    }

    func profile(_ change: (inout AndroidAppProfile) -> Void = { _ in }) throws -> AndroidAppProfile {
        var p = try AndroidAppProfile.load(path: Fixtures.path("payloads/apps/android-demo.json"))
        p.metricsBaseURL = server.baseURL
        change(&p)
        return p
    }

    func phone(_ p: AndroidAppProfile, windowMs: Int64 = 20_000) throws -> AndroidPhone {
        try AndroidPhone(profile: p, transport: client, filesDir: filesDir, handlerWindowMs: windowMs)
    }

    static let cioData: [(key: String, value: String)] = [("CIO-Delivery-ID", "dlv-android-1"), ("CIO-Delivery-Token", "tok-1"),
                                                          ("title", "Data title"), ("body", "Data body")]

    static func message(_ type: AndroidMessageType, data: [(key: String, value: String)] = cioData, image: String? = nil,
                        channel: String? = nil) -> AndroidMessage {
        var m = AndroidMessage(data: type == .notification ? [] : data, highPriority: true)
        if type != .data {
            m.hasNotification = true
            m.notificationTitle = "Notification title"
            m.notificationBody = "Notification body"
            m.notificationImage = image
            m.channelID = channel
        } else if let image {
            m.data.append(("image", image))
        }
        return m
    }

    /// The 9 cells of message type × app state: who sees it, who draws it, whether the SDK
    /// reports delivered (the SDK's receiver sees the RECEIVE broadcast of every message).
    func testMessageTypeByAppStateMatrix() async throws {
        struct Cell { var type: AndroidMessageType; var state: AndroidAppState; var handledBy: String; var drawnBy: AndroidDrawer?; var tracked: Bool }
        let cells = [
            Cell(type: .notification, state: .foreground, handledBy: "customer.io", drawnBy: nil, tracked: false),
            Cell(type: .notification, state: .background, handledBy: "fcm-tray", drawnBy: .fcmSDK, tracked: false),
            Cell(type: .notification, state: .killed, handledBy: "fcm-tray", drawnBy: .fcmSDK, tracked: false),
            Cell(type: .data, state: .foreground, handledBy: "customer.io", drawnBy: .customerIOSDK, tracked: true),
            Cell(type: .data, state: .background, handledBy: "customer.io", drawnBy: .customerIOSDK, tracked: true),
            Cell(type: .data, state: .killed, handledBy: "customer.io", drawnBy: .customerIOSDK, tracked: true),
            Cell(type: .both, state: .foreground, handledBy: "customer.io", drawnBy: .customerIOSDK, tracked: true),
            Cell(type: .both, state: .background, handledBy: "fcm-tray", drawnBy: .fcmSDK, tracked: true),
            Cell(type: .both, state: .killed, handledBy: "fcm-tray", drawnBy: .fcmSDK, tracked: true),
        ]
        var expectedRequests = 0
        for (i, cell) in cells.enumerated() {
            let data: [(key: String, value: String)] = [("CIO-Delivery-ID", "dlv-matrix-\(i)"), ("CIO-Delivery-Token", "tok-\(i)"), ("title", "Data title")]
            let report = try await phone(profile()).receive(Self.message(cell.type, data: data), state: cell.state,
                                                            conditions: AndroidConditions(horizonMs: 60_000))
            let label = "\(cell.type.rawValue) × \(cell.state.rawValue)"
            XCTAssertEqual(report.messageType, cell.type, label)
            XCTAssertEqual(report.handledBy, cell.handledBy, label)
            XCTAssertEqual(report.notification?.drawnBy, cell.drawnBy, label)
            XCTAssertEqual(report.deliveredTracked, cell.tracked, label)
            if cell.tracked {
                expectedRequests += 1
                XCTAssertEqual(report.metric?.fate, .sentOnce, label)
            }
            if cell.type == .both && cell.state == .foreground {
                XCTAssertEqual(report.notification?.title, "Data title", "data.title wins over notification.title")
            }
            if cell.drawnBy == .fcmSDK { XCTAssertEqual(report.notification?.title, "Notification title", label) }
        }
        XCTAssertEqual(server.metricRequests.filter { $0.path == "/v1/track" }.count, expectedRequests)
    }

    func testSameDeliveryIDTwiceInOneProcessReportsDeliveredOnceButDrawsTwice() async throws {
        let phone = try phone(profile())
        let m = Self.message(.data)
        let first = await phone.receive(m, state: .background, conditions: AndroidConditions(horizonMs: 60_000))
        let second = await phone.receive(m, state: .background, conditions: AndroidConditions(horizonMs: 60_000))
        XCTAssertTrue(first.deliveredTracked)
        XCTAssertFalse(first.duplicate)
        XCTAssertTrue(second.duplicate)
        XCTAssertFalse(second.deliveredTracked)
        XCTAssertNotNil(second.notification, "the guard gates the metric only; the notification is drawn again")
        XCTAssertEqual(second.diagnostics.map(\.code), ["duplicate-delivery-id"])
        XCTAssertEqual(server.metricRequests.count, 1)
        // The guard lives in memory: a new process forgets it.
        let afterDeath = await phone.receive(m, state: .killed, conditions: AndroidConditions(horizonMs: 60_000))
        XCTAssertTrue(afterDeath.deliveredTracked)
        XCTAssertEqual(server.metricRequests.count, 2)
    }

    func testGuardRemembersOnlyTheLastTenDeliveryIDs() async throws {
        let phone = try phone(profile { $0.autoTrackPushEvents = false })
        for i in 0...10 {
            _ = await phone.receive(Self.message(.data, data: [("CIO-Delivery-ID", "d\(i)"), ("CIO-Delivery-Token", "t")]), state: .background)
        }
        let oldest = await phone.receive(Self.message(.data, data: [("CIO-Delivery-ID", "d0"), ("CIO-Delivery-Token", "t")]), state: .background)
        XCTAssertFalse(oldest.duplicate, "d0 fell out of the 10-entry deque")
        let recent = await phone.receive(Self.message(.data, data: [("CIO-Delivery-ID", "d10"), ("CIO-Delivery-Token", "t")]), state: .background)
        XCTAssertTrue(recent.duplicate)
    }

    func testMissingChannelFallsBackToTheManifestDefaultThenToFCMsMisc() async throws {
        let withDefault = try await phone(profile()).receive(Self.message(.both, channel: "flash-sale"), state: .background)
        XCTAssertEqual(withDefault.notification?.channelID, "promotions")
        XCTAssertEqual(withDefault.diagnostics.map(\.code), ["missing-channel"])
        let noDefault = try await phone(profile { $0.fcmDefaultChannelId = nil }).receive(Self.message(.both, channel: "flash-sale"), state: .background)
        XCTAssertEqual(noDefault.notification?.channelID, "fcm_fallback_notification_channel")
        XCTAssertTrue(noDefault.diagnostics.contains { $0.code == "missing-channel" && $0.message.contains("Misc") })
        // The SDK creates its own channel when missing: never a missing channel on that path.
        let sdk = try await phone(profile { $0.channels = [] }).receive(Self.message(.data), state: .background)
        XCTAssertEqual(sdk.notification?.channelID, "io.pushlab.shop")
        XCTAssertTrue(sdk.timeline.contains { $0.event.contains("channel 'io.pushlab.shop' created") })
    }

    func testPermissionDeniedShowsNothingButDeliveredIsStillReported() async throws {
        let report = try await phone(profile { $0.postNotificationsGranted = false })
            .receive(Self.message(.data), state: .background, conditions: AndroidConditions(horizonMs: 60_000))
        XCTAssertNil(report.notification)
        XCTAssertTrue(report.notShownReason?.contains("POST_NOTIFICATIONS") ?? false)
        XCTAssertEqual(report.diagnostics.map(\.code), ["permission-denied"])
        XCTAssertEqual(report.metric?.fate, .sentOnce)
        XCTAssertEqual(server.metricRequests.count, 1)
        // Android 12 has no runtime permission: shown.
        let old = try await phone(profile { $0.postNotificationsGranted = false; $0.deviceApiLevel = 32 }).receive(Self.message(.data), state: .background)
        XCTAssertNotNil(old.notification)
    }

    func testImage404IsSwallowedAndTheNotificationShowsWithoutIt() async throws {
        let report = try await phone(profile()).receive(Self.message(.data, image: server.baseURL + "/missing.png"), state: .foreground)
        XCTAssertEqual(report.notification?.style, "BigTextStyle")
        XCTAssertEqual(report.notification?.image?.shown, false)
        XCTAssertEqual(report.notification?.image?.code, "http-404")
        let ok = try await phone(profile()).receive(Self.message(.data, data: [("CIO-Delivery-ID", "d2"), ("CIO-Delivery-Token", "t")],
                                                                 image: server.baseURL + "/banner.png"), state: .foreground)
        XCTAssertEqual(ok.notification?.style, "BigPictureStyle")
        XCTAssertEqual(ok.notification?.image?.format, "png")
    }

    func testImageOver1MiBIsDroppedByTheTrayButNotByTheSDK() async throws {
        let tray = try await phone(profile()).receive(Self.message(.both, image: server.baseURL + "/big.png"), state: .background)
        XCTAssertEqual(tray.notification?.drawnBy, .fcmSDK)
        XCTAssertEqual(tray.notification?.image?.code, "too-large")
        XCTAssertNotNil(tray.notification, "shown without the picture")
        // The SDK has no cap: it downloads all 11 MB (then BitmapFactory cannot decode the filler bytes).
        let sdk = try await phone(profile()).receive(Self.message(.data, image: server.baseURL + "/big.png"), state: .background)
        XCTAssertEqual(sdk.notification?.image?.code, "not-decodable")
        XCTAssertEqual(sdk.notification?.image?.bytes, 11 * 1024 * 1024)
    }

    func testSlowImageOutlivesTheHandlerWindowAndNothingIsPosted() async throws {
        let report = try await phone(profile(), windowMs: 300).receive(Self.message(.data, image: server.baseURL + "/stall.png"),
                                                                       state: .background, conditions: AndroidConditions(horizonMs: 60_000))
        XCTAssertNil(report.notification)
        XCTAssertEqual(report.diagnostics.map(\.code), ["image-outlived-window"])
        XCTAssertEqual(report.metric?.fate, .sentOnce, "the metric ran before the drawing")
        let tray = try await phone(profile(), windowMs: 300).receive(Self.message(.both, image: server.baseURL + "/stall.png"), state: .background)
        XCTAssertNotNil(tray.notification)
        XCTAssertEqual(tray.notification?.image?.code, "fcm-wait-expired")
    }

    func testAnotherMessagingServiceOutranksTheSDKs() async throws {
        let rn = AndroidMessagingService(name: "io.invertase.firebase.messaging.ReactNativeFirebaseMessagingService", priority: 0)
        let report = try await phone(profile { $0.messagingServices = [rn] }).receive(Self.message(.data), state: .background,
                                                                                        conditions: AndroidConditions(horizonMs: 60_000))
        XCTAssertEqual(report.handledBy, rn.name)
        XCTAssertNil(report.notification)
        XCTAssertEqual(report.diagnostics.map(\.code), ["service-outranked"])
        XCTAssertTrue(report.deliveredTracked, "the SDK's broadcast receiver still reports delivered")
        var forwarding = rn
        forwarding.forwardsToCustomerIO = true
        let fixed = try await phone(profile { $0.messagingServices = [forwarding] })
            .receive(Self.message(.data, data: [("CIO-Delivery-ID", "d9"), ("CIO-Delivery-Token", "t")]), state: .background)
        XCTAssertEqual(fixed.notification?.drawnBy, .customerIOSDK)
    }

    func testDataWithoutDeliveryKeysIsNotACustomerIOPush() async throws {
        let report = try await phone(profile()).receive(Self.message(.data, data: [("title", "hi")]), state: .foreground)
        XCTAssertFalse(report.customerIOPush)
        XCTAssertNil(report.notification)
        XCTAssertEqual(report.diagnostics.map(\.code), ["not-customer-io"])
    }

    func testNormalPriorityWaitsOutDoze() async throws {
        var m = Self.message(.data)
        m.highPriority = false
        let report = try await phone(profile()).receive(m, state: .background,
                                                        conditions: AndroidConditions(doze: [AndroidTimeWindow(startMs: 0, endMs: 900_000)], horizonMs: 1_000_000))
        XCTAssertEqual(report.arrivedAtMs, 900_000)
        XCTAssertTrue(report.diagnostics.map(\.code).contains("normal-priority-in-doze"))
        XCTAssertEqual(report.metric?.fate, .sentOnce)
    }

    func testFCMv1MessageFileParses() throws {
        let bytes = Array(try String(contentsOfFile: Fixtures.path("payloads/fcm/android-rich-push.json"), encoding: .utf8).utf8)
        let m = try AndroidMessage.parse(try JSONParser().parse(bytes).root)
        XCTAssertEqual(m.type, .data)
        XCTAssertTrue(m.isCustomerIOPush)
        XCTAssertTrue(m.highPriority)
        XCTAssertThrowsError(try AndroidMessage.parse(["message": ["data": ["n": 1]]])) { error in
            XCTAssertEqual("\(error)", "/message/data/n: FCM data values must be strings, got number (fix: quote the value)")
        }
    }
}

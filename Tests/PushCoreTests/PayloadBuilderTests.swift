import XCTest
@testable import PushCore

/// The builder's output always passes the validator; bad inputs are named by their flag.
final class PayloadBuilderTests: XCTestCase {
    private func roundTrip(_ value: JSONValue, file: StaticString = #filePath, line: UInt = #line) throws {
        let bytes = value.minifiedBytes()
        let report = Validator().validate(bytes: bytes)
        XCTAssertEqual(report.findings.map { "\($0.ruleID): \($0.message)" }, [], file: file, line: line)
        if report.format == .apns {
            XCTAssertEqual(report.byteCount, bytes.count, "the reported size is the size sent", file: file, line: line)
        } else {
            // FCM limits the message content: the message without its target.
            var message = try XCTUnwrap(value["message"]?.objectValue)
            message.members.removeAll { ["token", "topic", "condition"].contains($0.key) }
            XCTAssertEqual(report.byteCount, JSONValue.object(message).minifiedBytes().count, file: file, line: line)
        }
    }

    private var rich: PayloadBuilder {
        var b = PayloadBuilder()
        b.title = "Spring sale"
        b.subtitle = "Today"
        b.body = "30% off"
        b.image = "https://cdn.example.com/a.jpg"
        b.link = "myapp://sale"
        b.sound = "default"
        b.badge = 2
        b.category = "PROMO"
        b.threadID = "promos"
        b.interruptionLevel = "time-sensitive"
        b.relevanceScore = 0.5
        b.data = [("campaign", "spring"), ("n", "1")]
        b.deliveryID = "dlv-1"
        b.deliveryToken = "tok-1"
        return b
    }

    func testRichAPNsPayloadRoundTripsThroughTheValidator() throws {
        let value = try rich.apnsPayload()
        try roundTrip(value)
        let push = try XCTUnwrap(CIOPush(payload: value))
        XCTAssertEqual(push.image, "https://cdn.example.com/a.jpg")
        XCTAssertTrue(APS(payload: value)!.runsServiceExtension)
        XCTAssertEqual(value["campaign"], "spring")
    }

    func testMinimalAlertAndBackgroundRoundTrip() throws {
        var b = PayloadBuilder()
        b.body = "Hello"
        try roundTrip(try b.apnsPayload())
        var bg = PayloadBuilder()
        bg.pushType = .background
        bg.data = [("sync", "inbox")]
        let value = try bg.apnsPayload()
        try roundTrip(value)
        XCTAssertEqual(APNsPushType.inferred(from: value), .background)
    }

    func testFCMRequestsRoundTripForEveryTarget() throws {
        for target in [FCMTarget.token(DeviceTokenTests.fcmToken), .topic("news"), .condition("'a' in topics")] {
            let value = try rich.fcmRequest(target: target)
            try roundTrip(value)
            XCTAssertEqual(value["message"]?["apns"]?["payload"]?["CIO-Delivery-ID"], "dlv-1")
        }
        var bg = PayloadBuilder()
        bg.pushType = .background
        try roundTrip(try bg.fcmRequest(target: .topic("sync"), validateOnly: true))
    }

    func testBadInputsNameTheirFlag() {
        func flag(_ mutate: (inout PayloadBuilder) -> Void) -> String? {
            var b = rich
            mutate(&b)
            do { _ = try b.apnsPayload(); return nil } catch { return error.flag }
        }
        XCTAssertEqual(flag { $0.image = "http://cdn.example.com/a.jpg" }, "--image")
        XCTAssertEqual(flag { $0.image = "https://cdn.example.com/a.webp" }, "--image")
        XCTAssertEqual(flag { $0.link = "not a url" }, "--link")
        XCTAssertEqual(flag { $0.interruptionLevel = "urgent" }, "--interruption-level")
        XCTAssertEqual(flag { $0.deliveryToken = nil }, "--delivery-id")
        XCTAssertEqual(flag { $0.pushType = .background }, "--title")
        XCTAssertEqual(flag { $0.badge = -1 }, "--badge")
        XCTAssertEqual(flag { $0.data = [("aps", "x")] }, "--data")
    }

    func testFCMBuilderRejectsAnAPNsToken() {
        XCTAssertThrowsError(try rich.fcmRequest(target: .token(DeviceTokenTests.apnsToken))) { error in
            XCTAssertEqual((error as? PayloadBuildError)?.flag, "--token")
            XCTAssertTrue((error as? PayloadBuildError)?.message.contains("FCM needs the FCM registration token") ?? false)
        }
    }
}

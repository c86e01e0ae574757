import XCTest
@testable import PushCore

/// The validator API the sender (pre-flight) and the gateway emulator (rejections) share.
final class ValidatorScopeTests: XCTestCase {
    func testServiceEnforcedScopeKeepsOnlyWhatTheServiceRejects() throws {
        let payload: JSONValue = ["aps": ["alert": ["title": "Hi"], "badge": "3"],
                                  "CIO": ["push": ["image": "http://x.test/a.png"]], "CIO-Delivery-ID": "d", "CIO-Delivery-Token": "t"]
        let all = Validator().validate(payload)
        XCTAssertFalse(all.findings(for: "aps.badge.type").isEmpty)
        XCTAssertFalse(all.findings(for: "cio.image.https").isEmpty)
        let service = Validator(options: ValidationOptions(scope: .serviceEnforced)).validate(payload)
        XCTAssertEqual(service.findings.map(\.ruleID), [], "iOS- and SDK-level rules are not APNs rejections")
    }

    func testOversizedPayloadMapsToPayloadTooLarge() throws {
        let payload: JSONValue = ["aps": ["alert": .string(String(repeating: "x", count: 5000))]]
        let report = Validator(options: ValidationOptions(scope: .serviceEnforced)).validate(payload)
        let finding = try XCTUnwrap(report.findings.first)
        XCTAssertEqual(finding.ruleID, "apns.size.max")
        XCTAssertEqual(finding.rule?.apnsReason, "PayloadTooLarge")
        XCTAssertEqual(finding.rule?.apnsStatus, 413)
    }

    func testSizeLimitIsExactAt4096Bytes() throws {
        // {"aps":{"alert":"xxx…"}} is 20 bytes of structure plus the text.
        func payload(_ n: Int) -> JSONValue { ["aps": ["alert": .string(String(repeating: "x", count: n))]] }
        XCTAssertEqual(payload(4096 - 20).minifiedByteCount, 4096)
        XCTAssertTrue(Validator().validate(payload(4096 - 20)).findings(for: "apns.size.max").isEmpty)
        XCTAssertEqual(Validator().validate(payload(4096 - 19)).findings(for: "apns.size.max").count, 1)
        XCTAssertEqual(Validator().validate(payload(4096 - 20)).byteCount, payload(4096 - 20).minifiedBytes().count)
    }

    func testVoIPAllows5120Bytes() {
        let payload: JSONValue = ["aps": [:], "call": .string(String(repeating: "x", count: 4500))]
        let voip = Validator(options: ValidationOptions(apns: APNsRequest(pushType: "voip"))).validate(payload)
        XCTAssertTrue(voip.findings(for: "apns.size.max").isEmpty)
        XCTAssertEqual(voip.byteLimit, 5120)
        XCTAssertEqual(Validator().validate(payload).findings(for: "apns.size.max").count, 1)
    }

    func testReceivedByteCountIsWhatTheGatewayMeasures() throws {
        // Whitespace counts when the body arrives with it: APNs measures what it receives.
        let text = "{\"aps\":{\"alert\":\"hi\"}" + String(repeating: " ", count: 4100) + "}"
        let bytes = Array(text.utf8)
        let gateway = Validator(options: ValidationOptions(scope: .serviceEnforced, receivedByteCount: bytes.count)).validate(bytes: bytes)
        XCTAssertEqual(gateway.findings.map(\.ruleID), ["apns.size.max"])
        XCTAssertTrue(Validator().validate(bytes: bytes).findings(for: "apns.size.max").isEmpty, "minified it is small")
    }

    func testHeaderFindingsNameTheHeader() throws {
        let ctx = APNsRequest(headers: [("apns-push-type", "background"), ("apns-priority", "10")])
        let report = Validator(options: ValidationOptions(apns: ctx)).validate(["aps": ["content-available": 1]] as JSONValue)
        let f = try XCTUnwrap(report.findings(for: "apns.background.priority").first)
        XCTAssertEqual(f.header, "apns-priority")
        XCTAssertNil(f.pointer)
    }

    func testFCMIntegerHeaderIsAServiceRejection() throws {
        let msg: JSONValue = ["message": ["token": .string(DeviceTokenTests.fcmToken), "notification": ["title": "Hi"],
                                          "apns": ["headers": ["apns-priority": 10]]]]
        let report = Validator(options: ValidationOptions(scope: .serviceEnforced)).validate(msg)
        XCTAssertEqual(report.format, .fcm)
        XCTAssertEqual(report.findings.map(\.ruleID), ["fcm.apns.headers.string"])
        XCTAssertEqual(report.findings.first?.pointer?.description, "/message/apns/headers/apns-priority")
    }

    func testFormatDetection() {
        XCTAssertEqual(PayloadFormat.detect(["aps": [:]]), .apns)
        XCTAssertEqual(PayloadFormat.detect(["message": [:]]), .fcm)
        XCTAssertEqual(PayloadFormat.detect(["to": "x", "notification": [:]]), .fcm)
        XCTAssertEqual(PayloadFormat.detect(["Simulator Target Bundle": "x", "aps": [:]]), .simulator)
    }

    func testFCMImageOptionImpliesMutableContent() {
        // FCM adds mutable-content itself when apns.fcm_options.image is set.
        let msg: JSONValue = ["message": ["token": .string(DeviceTokenTests.fcmToken), "notification": ["title": "Hi"],
                                          "apns": ["payload": ["CIO": ["push": ["image": "https://x.test/a.png"]]],
                                                   "fcm_options": ["image": "https://x.test/a.png"]]]]
        XCTAssertEqual(Validator().validate(msg).findings.map(\.ruleID), [])
    }

    func testMisspeltAPSKeySuggestsTheRightOne() throws {
        let report = Validator().validate(["aps": ["alert": "x", "contentAvailable": 1]] as JSONValue)
        XCTAssertTrue(try XCTUnwrap(report.findings(for: "aps.unknown-key").first).message.contains("content-available"))
    }
}

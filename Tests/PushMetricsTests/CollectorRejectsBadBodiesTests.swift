import PushMetrics
import XCTest

/// 400 with one reason per rule, naming the JSON pointer; nothing stored from a refused body.
final class CollectorRejectsBadBodiesTests: XCTestCase {
    private func expect400(_ path: String, _ body: String, code: String, pointer: String?, reason: String,
                           file: StaticString = #filePath, line: UInt = #line) async throws {
        let h = try CollectorHarness()
        let auth = path == "/push/events" ? CollectorHarness.legacyAuthorization : CollectorHarness.cdpAuthorization
        let (status, json) = try await h.send(path, body, authorization: auth)
        XCTAssertEqual(status, 400, file: file, line: line)
        XCTAssertEqual(json["error"] as? String, code, file: file, line: line)
        XCTAssertEqual(json["pointer"] as? String, pointer, file: file, line: line)
        XCTAssertEqual(json["reason"] as? String, reason, file: file, line: line)
        XCTAssertEqual(try h.storedRows("SELECT COUNT(*) FROM metrics"), [["0"]], file: file, line: line)
        XCTAssertEqual(try h.storedRows("SELECT status, error FROM metric_requests"), [["400", code]], file: file, line: line)
    }

    func testEmptyBodyIs400() async throws {
        try await expect400("/v1/track", "", code: "empty_body", pointer: nil, reason: "the request body is empty")
    }

    func testMalformedJSONIs400() async throws {
        let h = try CollectorHarness()
        let (status, json) = try await h.send("/v1/track", #"{"event": "Report Delivery Event", "#, authorization: CollectorHarness.cdpAuthorization)
        XCTAssertEqual(status, 400)
        XCTAssertEqual(json["error"] as? String, "malformed_json")
        XCTAssertTrue((json["reason"] as? String ?? "").hasPrefix("the body is not valid JSON"))
    }

    func testBodyThatIsNotAnObjectIs400() async throws {
        try await expect400("/v1/track", "[1,2]", code: "not_an_object", pointer: "", reason: "the body must be a JSON object")
    }

    func testMissingEventIs400() async throws {
        try await expect400("/v1/track", #"{"anonymousId":"d1","properties":{"recipient":"t","metric":"delivered","deliveryId":"d1"}}"#,
                            code: "missing_field", pointer: "/event", reason: "missing field /event (the event name, \"Report Delivery Event\")")
    }

    func testUnknownEventOnTrackIs400() async throws {
        try await expect400("/v1/track", #"{"anonymousId":"d1","event":"Push Tapped","properties":{"recipient":"t","metric":"delivered","deliveryId":"d1"}}"#,
                            code: "unknown_event", pointer: "/event", reason: "unknown event 'Push Tapped' at /event")
    }

    func testUnknownMetricIs400() async throws {
        try await expect400("/v1/track", #"{"anonymousId":"d1","event":"Report Delivery Event","properties":{"recipient":"t","metric":"bounced","deliveryId":"d1"}}"#,
                            code: "unknown_metric", pointer: "/properties/metric", reason: "unknown metric 'bounced' at /properties/metric")
    }

    func testMissingDeliveryIDIs400() async throws {
        try await expect400("/v1/track", #"{"anonymousId":"d1","event":"Report Delivery Event","properties":{"recipient":"t","metric":"delivered"}}"#,
                            code: "missing_field", pointer: "/properties/deliveryId",
                            reason: "missing field /properties/deliveryId (the push's CIO-Delivery-ID)")
    }

    func testMalformedDeliveryIDIs400() async throws {
        try await expect400("/v1/track", #"{"anonymousId":"d1","event":"Report Delivery Event","properties":{"recipient":"t","metric":"delivered","deliveryId":"has space"}}"#,
                            code: "malformed_delivery_id", pointer: "/properties/deliveryId",
                            reason: "malformed delivery id 'has space' at /properties/deliveryId")
    }

    func testEmptyDeliveryIDIsMalformed() async throws {
        try await expect400("/push/events", #"{"delivery_id":"","device_id":"tok","event":"delivered"}"#,
                            code: "malformed_delivery_id", pointer: "/delivery_id", reason: "malformed delivery id '' at /delivery_id")
    }

    func testDeliveryIDOfWrongTypeIs400() async throws {
        try await expect400("/v1/track", #"{"anonymousId":"d1","event":"Report Delivery Event","properties":{"recipient":"t","metric":"delivered","deliveryId":42}}"#,
                            code: "wrong_type", pointer: "/properties/deliveryId", reason: "/properties/deliveryId must be a string, not a number")
    }

    func testMissingRecipientIs400() async throws {
        try await expect400("/v1/track", #"{"anonymousId":"d1","event":"Report Delivery Event","properties":{"metric":"delivered","deliveryId":"d1"}}"#,
                            code: "missing_field", pointer: "/properties/recipient",
                            reason: "missing field /properties/recipient (the push's CIO-Delivery-Token)")
    }

    func testTrackWithoutAnonymousIdOrUserIdIs400() async throws {
        try await expect400("/v1/track", #"{"event":"Report Delivery Event","properties":{"recipient":"t","metric":"delivered","deliveryId":"d1"}}"#,
                            code: "missing_field", pointer: "/anonymousId",
                            reason: "missing field /anonymousId (anonymousId or userId: a track call needs one)")
    }

    func testMissingBatchArrayIs400() async throws {
        try await expect400("/v1/b", #"{"sentAt":"2026-04-02T10:46:09.001Z"}"#, code: "missing_field", pointer: "/batch",
                            reason: "missing field /batch (an array of events)")
    }

    func testEmptyBatchIs400() async throws {
        try await expect400("/v1/b", #"{"batch":[]}"#, code: "empty_batch", pointer: "/batch", reason: "the batch is empty")
    }

    func testOneBadItemRefusesTheWholeBatchNamingItsPointer() async throws {
        let body = #"{"batch":[{"type":"track","event":"Report Delivery Event","properties":{"metric":"opened","deliveryId":"d1","recipient":"t"},"anonymousId":"a"},{"type":"track","event":"Report Delivery Event","properties":{"metric":"opened","recipient":"t"},"anonymousId":"a"}]}"#
        try await expect400("/v1/b", body, code: "missing_field", pointer: "/batch/1/properties/deliveryId",
                            reason: "missing field /batch/1/properties/deliveryId (the push's CIO-Delivery-ID)")
    }

    func testMalformedBatchTimestampIs400() async throws {
        let body = #"{"batch":[{"type":"track","event":"Report Delivery Event","properties":{"metric":"delivered","deliveryId":"d1","recipient":"t"},"anonymousId":"a","timestamp":"yesterday"}]}"#
        try await expect400("/v1/b", body, code: "malformed_timestamp", pointer: "/batch/0/timestamp",
                            reason: "malformed timestamp 'yesterday' at /batch/0/timestamp")
    }

    func testLegacyUnknownEventIs400() async throws {
        try await expect400("/push/events", #"{"delivery_id":"d1","device_id":"tok","event":"bounced","timestamp":1}"#,
                            code: "unknown_event", pointer: "/event", reason: "unknown event 'bounced' at /event")
    }

    func testLegacyMissingDeviceIDIs400() async throws {
        try await expect400("/push/events", #"{"delivery_id":"d1","event":"delivered","timestamp":1}"#,
                            code: "missing_field", pointer: "/device_id", reason: "missing field /device_id (the device token)")
    }

    func testLegacyTimestampAsTextIs400() async throws {
        try await expect400("/push/events", #"{"delivery_id":"d1","device_id":"tok","event":"delivered","timestamp":"2026-04-02"}"#,
                            code: "malformed_timestamp", pointer: "/timestamp", reason: "malformed timestamp '2026-04-02' at /timestamp")
    }
}

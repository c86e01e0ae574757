import PushMetrics
import XCTest

/// docs/specs/device-side.md §3: each route accepts the exact request bodies the SDKs send, and every
/// metric lands in the SQLite file with its receive time, route, ids, timestamp, body and UA.
final class CollectorAcceptsSpecBodiesTests: XCTestCase {
    func testTrackRouteAcceptsTheNSEDeliveredBodyAndStoresIt() async throws {
        let h = try CollectorHarness()
        let body = #"{"anonymousId":"RPILAgUBcRhIBqSfeiIwdIYJKxTY","event":"Report Delivery Event","properties":{"recipient":"dtok-9f8e7d6c5b4a","metric":"delivered","deliveryId":"RPILAgUBcRhIBqSfeiIwdIYJKxTY"}}"#
        let ua = "Customer.io NSE Client/4.7.5 (iPhone15,2; iOS 18.1) io.pushlab.demo.richpush/1.0"
        let (status, json) = try await h.send("/v1/track", body, authorization: CollectorHarness.cdpAuthorization, userAgent: ua)
        XCTAssertEqual(status, 200)
        XCTAssertEqual(json["stored"] as? Int, 1)
        XCTAssertEqual(json["duplicates"] as? Int, 0)

        let rows = try h.storedRows("SELECT route, delivery_id, metric, recipient, ifnull(original_timestamp,'none'), duplicate, user_agent, received_at FROM metrics")
        XCTAssertEqual(rows, [["/v1/track", "RPILAgUBcRhIBqSfeiIwdIYJKxTY", "delivered", "dtok-9f8e7d6c5b4a", "none", "0", ua,
                               String(h.clock.now.timeIntervalSince1970)]])
        let raw = try h.storedRows("SELECT status, CAST(body AS TEXT) FROM metric_requests")
        XCTAssertEqual(raw, [["200", body]])
    }

    func testBatchRouteAcceptsThePipelineOpenedEnvelopeWithWriteKeyOnly() async throws {
        let h = try CollectorHarness()
        let body = #"{"batch":[{"type":"track","event":"Report Delivery Event","properties":{"metric":"opened","deliveryId":"RPILAgUBcRhIBqSfeiIwdIYJKxTY","recipient":"dtok-9f8e7d6c5b4a"},"anonymousId":"6f1c2d3e-anon","userId":"user-17","timestamp":"2026-04-02T10:46:08.123Z","messageId":"2b0f3a9c-msg"}],"sentAt":"2026-04-02T10:46:09.001Z","writeKey":"cdp-test-key-1"}"#
        let (status, json) = try await h.send("/v1/b", body, authorization: nil)
        XCTAssertEqual(status, 200)
        XCTAssertEqual(json["stored"] as? Int, 1)
        let rows = try h.storedRows("SELECT route, delivery_id, metric, recipient, original_timestamp, original_timestamp_text, batch_index FROM metrics")
        XCTAssertEqual(rows.count, 1)
        XCTAssertEqual(Array(rows[0][0...3]), ["/v1/b", "RPILAgUBcRhIBqSfeiIwdIYJKxTY", "opened", "dtok-9f8e7d6c5b4a"])
        XCTAssertEqual(Double(rows[0][4])!, 1_775_126_768.123, accuracy: 0.0005)  // 2026-04-02T10:46:08.123Z
        XCTAssertEqual(Array(rows[0][5...6]), ["2026-04-02T10:46:08.123Z", "0"])
    }

    func testBatchRouteStoresEachDeliveryItemAndIgnoresOtherAppEvents() async throws {
        let h = try CollectorHarness()
        let body = #"{"batch":[{"type":"identify","userId":"user-17","traits":{}},{"type":"track","event":"Report Delivery Event","properties":{"metric":"delivered","deliveryId":"del-1","recipient":"tok-a"},"anonymousId":"a","timestamp":"2026-04-02T10:00:00.000Z","messageId":"m1"},{"type":"track","event":"Application Opened","anonymousId":"a","properties":{}},{"type":"track","event":"Report Delivery Event","properties":{"metric":"opened","deliveryId":"del-2","recipient":"tok-b"},"anonymousId":"a","timestamp":"2026-04-02T10:00:01.000Z","messageId":"m2"}],"sentAt":"2026-04-02T10:00:02.000Z","writeKey":"cdp-test-key-1"}"#
        let (status, json) = try await h.send("/v1/b", body, authorization: CollectorHarness.cdpAuthorization)
        XCTAssertEqual(status, 200)
        XCTAssertEqual(json["stored"] as? Int, 2)
        XCTAssertEqual(json["ignored"] as? Int, 2)
        XCTAssertEqual(try h.storedRows("SELECT delivery_id, metric, batch_index FROM metrics ORDER BY id"),
                       [["del-1", "delivered", "1"], ["del-2", "opened", "3"]])
    }

    func testLegacyRouteAcceptsTheOldSDKBodyWithSiteIDAndAPIKey() async throws {
        let h = try CollectorHarness()
        let body = #"{"delivery_id":"RPILAgUBcRhIBqSfeiIwdIYJKxTY","device_id":"3a4b5c6d7e8f90112233445566778899aabbccddeeff00112233445566778899","event":"opened","timestamp":1775126768}"#
        let (status, _) = try await h.send("/push/events", body, authorization: CollectorHarness.legacyAuthorization)
        XCTAssertEqual(status, 200)
        XCTAssertEqual(try h.storedRows("SELECT route, delivery_id, metric, recipient, original_timestamp, original_timestamp_text FROM metrics"),
                       [["/push/events", "RPILAgUBcRhIBqSfeiIwdIYJKxTY", "opened",
                         "3a4b5c6d7e8f90112233445566778899aabbccddeeff00112233445566778899", "1775126768.0", "1775126768"]])
    }

    func testEmptyDeliveryTokenIsAcceptedAsTheSDKSendsIt() async throws {
        // docs/specs/device-side.md §1: an empty CIO-Delivery-Token still makes a Customer.io push.
        let h = try CollectorHarness()
        let body = #"{"anonymousId":"del-9","event":"Report Delivery Event","properties":{"recipient":"","metric":"delivered","deliveryId":"del-9"}}"#
        let (status, _) = try await h.send("/v1/track", body, authorization: CollectorHarness.cdpAuthorization)
        XCTAssertEqual(status, 200)
        XCTAssertEqual(try h.storedRows("SELECT delivery_id, recipient FROM metrics"), [["del-9", ""]])
    }
}

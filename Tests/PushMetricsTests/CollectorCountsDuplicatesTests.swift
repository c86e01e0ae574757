import PushMetrics
import XCTest

/// The same (delivery id, metric) twice is stored twice, flagged as a duplicate, and counted
/// once in the report's rates.
final class CollectorCountsDuplicatesTests: XCTestCase {
    let delivered = #"{"anonymousId":"dup-1","event":"Report Delivery Event","properties":{"recipient":"tok","metric":"delivered","deliveryId":"dup-1"}}"#

    func testSecondDeliveredForOneDeliveryIsADuplicate() async throws {
        let h = try CollectorHarness()
        let (_, first) = try await h.send("/v1/track", delivered, authorization: CollectorHarness.cdpAuthorization)
        let (_, second) = try await h.send("/v1/track", delivered, authorization: CollectorHarness.cdpAuthorization)
        XCTAssertEqual(first["duplicates"] as? Int, 0)
        XCTAssertEqual(second["duplicates"] as? Int, 1)
        XCTAssertEqual(try h.storedRows("SELECT delivery_id, duplicate FROM metrics ORDER BY id"), [["dup-1", "0"], ["dup-1", "1"]])
        XCTAssertEqual(h.collector.counters.duplicates, 1)

        let report = try MetricsReport.load(store: h.store)
        XCTAssertEqual(report.totals.delivered, 1)
        XCTAssertEqual(report.totals.metricsReceived, 2)
        XCTAssertEqual(report.totals.duplicates, 1)
        XCTAssertEqual(report.totals.duplicatedDeliveries, 1)
        XCTAssertEqual(report.totals.duplicateShare, 1.0)
        XCTAssertEqual(report.deliveries.first?.delivered, 2)
        XCTAssertEqual(report.deliveries.first?.duplicates, 1)
    }

    func testRecoveredCopyOfALiveMetricIsADuplicateAcrossRoutes() async throws {
        // docs/specs/device-side.md §4: the metric succeeded but the row removal did not, so recovery resends it.
        let h = try CollectorHarness()
        _ = try await h.send("/v1/track", delivered, authorization: CollectorHarness.cdpAuthorization)
        h.clock.advance(by: 3600)
        let recovered = #"{"batch":[{"type":"track","event":"Report Delivery Event","properties":{"metric":"delivered","deliveryId":"dup-1","recipient":"tok"},"anonymousId":"a","timestamp":"2026-01-01T00:00:00.000Z","messageId":"m"}],"writeKey":"cdp-test-key-1"}"#
        let (status, json) = try await h.send("/v1/b", recovered, authorization: nil)
        XCTAssertEqual(status, 200)
        XCTAssertEqual(json["duplicates"] as? Int, 1)
        let report = try h.collector.report()
        XCTAssertEqual(report.totals.deliveredLive, 1)
        XCTAssertEqual(report.totals.recoveredAtLaunch, 0, "the first delivered was live; the copy is a duplicate")
        XCTAssertEqual(report.totals.duplicates, 1)
    }

    func testDuplicatesAreRecognisedAfterARestartOnTheSameFile() async throws {
        let h = try CollectorHarness()
        _ = try await h.send("/v1/track", delivered, authorization: CollectorHarness.cdpAuthorization)
        h.collector.flush()
        let again = try CollectorHarness(databasePath: h.databasePath)
        let (_, json) = try await again.send("/v1/track", delivered, authorization: CollectorHarness.cdpAuthorization)
        XCTAssertEqual(json["duplicates"] as? Int, 1)
    }

    func testDuplicateWithinOneBatchIsCounted() async throws {
        let h = try CollectorHarness()
        let item = #"{"type":"track","event":"Report Delivery Event","properties":{"metric":"opened","deliveryId":"d7","recipient":"t"},"anonymousId":"a"}"#
        let (_, json) = try await h.send("/v1/b", #"{"batch":[\#(item),\#(item)],"writeKey":"cdp-test-key-1"}"#, authorization: nil)
        XCTAssertEqual(json["stored"] as? Int, 2)
        XCTAssertEqual(json["duplicates"] as? Int, 1)
    }

    func testCommittedAcknowledgementStoresBeforeAnswering() async throws {
        let h = try CollectorHarness(acknowledgement: .committed)
        let (status, json) = try await h.send("/v1/track", delivered, authorization: CollectorHarness.cdpAuthorization)
        XCTAssertEqual(status, 200)
        XCTAssertEqual(json["stored"] as? Int, 1)
        // Read without flushing: the row must already be committed.
        let rows = try h.store.database.query("SELECT COUNT(*) FROM metrics")
        XCTAssertEqual(rows.first?.int(0), 1)
    }
}

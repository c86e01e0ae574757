import PushMetrics
import XCTest

/// A failed commit loses nothing: queued metrics are retried until they are written; with
/// `--ack committed` the client is told 503 so it retries itself.
final class CollectorKeepsMetricsWhenTheStoreFailsTests: XCTestCase {
    let track = #"{"anonymousId":"s1","event":"Report Delivery Event","properties":{"recipient":"t","metric":"delivered","deliveryId":"s1"}}"#

    func testQueuedMetricsAreRetriedAfterAFailedCommit() async throws {
        let h = try CollectorHarness()
        try h.store.database.execute("ALTER TABLE metrics RENAME TO metrics_away")
        let (status, _) = try await h.send("/v1/track", track, authorization: CollectorHarness.cdpAuthorization)
        XCTAssertEqual(status, 200)
        h.collector.flush()
        XCTAssertGreaterThanOrEqual(h.collector.writerFailures, 1)
        try h.store.database.execute("ALTER TABLE metrics_away RENAME TO metrics")
        h.collector.flush()
        XCTAssertEqual(try h.storedRows("SELECT delivery_id FROM metrics"), [["s1"]])
        XCTAssertEqual(try h.storedRows("SELECT COUNT(*) FROM metric_requests"), [["1"]])
    }

    func testCommittedAcknowledgementAnswers503WhenTheCommitFails() async throws {
        let h = try CollectorHarness(acknowledgement: .committed)
        try h.store.database.execute("ALTER TABLE metrics RENAME TO metrics_away")
        let (status, json) = try await h.send("/v1/track", track, authorization: CollectorHarness.cdpAuthorization)
        XCTAssertEqual(status, 503)
        XCTAssertEqual(json["error"] as? String, "store_unavailable")
        try h.store.database.execute("ALTER TABLE metrics_away RENAME TO metrics")
        let (retry, again) = try await h.send("/v1/track", track, authorization: CollectorHarness.cdpAuthorization)
        XCTAssertEqual(retry, 200)
        XCTAssertEqual(again["duplicates"] as? Int, 0, "the refused attempt was never stored")
        XCTAssertEqual(try h.storedRows("SELECT delivery_id, duplicate FROM metrics"), [["s1", "0"]])
    }
}

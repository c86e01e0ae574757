import Foundation
@testable import PushMetrics
import TestSupport
import XCTest

/// A full batch (`maxPending` records waiting) queues one drain that commits at once, not one
/// per record handed over after it: that drain takes everything pending, and under a fast event
/// loop and a slow commit the others found little or nothing to commit (small commits cost
/// several times more per row).
final class MetricWriterQueuesOneCommitForAFullBatchTests: XCTestCase {
    private static func record(_ n: Int) -> (MetricRequestRecord, [ReportedMetric]) {
        (MetricRequestRecord(receivedAt: Date(timeIntervalSince1970: 1_775_126_768), route: .track, status: 200, body: Array("r\(n)".utf8)),
         [ReportedMetric(route: .track, deliveryID: "d\(n)", metric: .delivered, recipient: "t")])
    }

    func testRecordsHandedOverPastAFullBatchQueueNoFurtherDrain() async throws {
        let directory = Fixtures.temporaryDirectory("metric-writer-full")
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try MetricStore(path: directory.appendingPathComponent("full.sqlite").path)
        // A long delay: nothing is committed by the timer, only by `flush()` and full batches.
        let writer = try MetricWriter(store: store, delay: .seconds(600), maxPending: 4)
        // The first record's completion runs on the writer's thread, inside the drain that
        // committed it, and hands over ten more: every one from the fourth on finds a full batch
        // while no other drain can run yet.
        let (r0, m0) = Self.record(0)
        writer.submit(r0, metrics: m0) { _, _ in
            for n in 1...10 {
                let (r, m) = Self.record(n)
                writer.submit(r, metrics: m)
            }
        }
        writer.flush()
        let stored = await Poll.until { (try? store.database.query("SELECT COUNT(*) FROM metrics").first?.int(0)) == 11 }
        XCTAssertTrue(stored, "all eleven records committed")
        XCTAssertEqual(writer.drains, 2, "flush() and one drain for the full batch")
    }
}

import Foundation
@testable import PushMetrics
import TestSupport
import XCTest

/// The writer's group commits (docs/metrics.md, "Acknowledgement"): a busy writer waits once for
/// companions of a small batch, a lone request is committed without waiting, and `flush()` and a
/// full batch never wait. Real SQLite file; no timing is asserted — only that every record ends
/// up committed and its completion runs.
final class MetricWriterGroupCommitTests: XCTestCase {
    private var directory: URL!

    override func setUp() { directory = Fixtures.temporaryDirectory("metric-writer") }
    override func tearDown() { try? FileManager.default.removeItem(at: directory) }

    private func record(_ id: String) -> (MetricRequestRecord, [ReportedMetric]) {
        (MetricRequestRecord(receivedAt: Date(timeIntervalSince1970: 1_775_126_768), route: .track, status: 200, body: Array(id.utf8)),
         [ReportedMetric(route: .track, deliveryID: id, metric: .delivered, recipient: "t")])
    }

    private func storedCount(_ store: MetricStore) throws -> Int {
        try store.database.query("SELECT COUNT(*) FROM metrics").first?.int(0) ?? -1
    }

    func testOnlyASmallBatchAfterABusyCommitWaits() {
        let from = MetricWriter.gatherFrom
        XCTAssertFalse(MetricWriter.shouldGather(pending: 1, lastBatch: 0, alreadyWaited: false), "a lone request after an idle spell")
        XCTAssertFalse(MetricWriter.shouldGather(pending: 1, lastBatch: from - 1, alreadyWaited: false), "the last commit was not busy")
        XCTAssertTrue(MetricWriter.shouldGather(pending: 1, lastBatch: from, alreadyWaited: false))
        XCTAssertTrue(MetricWriter.shouldGather(pending: from / 2 - 1, lastBatch: from, alreadyWaited: false))
        XCTAssertFalse(MetricWriter.shouldGather(pending: from / 2, lastBatch: from, alreadyWaited: false), "half the last batch is enough")
        XCTAssertFalse(MetricWriter.shouldGather(pending: 1, lastBatch: from, alreadyWaited: true), "it waits once per batch")
        XCTAssertFalse(MetricWriter.shouldGather(pending: 0, lastBatch: from, alreadyWaited: false), "nothing to wait with")
    }

    /// After a busy commit, one straggler: the writer waits for companions, finds none, and
    /// commits it anyway; its completion runs after its commit.
    func testAStragglerAfterABusyCommitIsCommittedAndAnswered() async throws {
        let store = try MetricStore(path: directory.appendingPathComponent("straggler.sqlite").path)
        let writer = try MetricWriter(store: store)
        writer.assumeLastCommit(of: 200)
        let (r, m) = record("straggler")
        let answered = await withCheckedContinuation { (done: CheckedContinuation<Bool, Never>) in
            writer.submit(r, metrics: m) { _, error in done.resume(returning: error == nil) }
        }
        XCTAssertTrue(answered)
        XCTAssertEqual(writer.gatherWaits, 1, "the busy writer waited once for companions")
        XCTAssertEqual(try storedCount(store), 1)
        // The next lone request finds the writer no longer busy (its last commit held 1): no wait.
        let (r2, m2) = record("lone")
        let answered2 = await withCheckedContinuation { (done: CheckedContinuation<Bool, Never>) in
            writer.submit(r2, metrics: m2) { _, error in done.resume(returning: error == nil) }
        }
        XCTAssertTrue(answered2)
        XCTAssertEqual(writer.gatherWaits, 1)
        XCTAssertEqual(try storedCount(store), 2)
    }

    /// `flush()` right after a hand-over commits it before returning, even when the writer would
    /// otherwise wait for companions.
    func testFlushDoesNotWaitForCompanions() throws {
        let store = try MetricStore(path: directory.appendingPathComponent("flush.sqlite").path)
        let writer = try MetricWriter(store: store)
        for n in 0..<3 {
            writer.assumeLastCommit(of: 200)
            let (r, m) = record("after-\(n)")
            writer.submit(r, metrics: m)
            writer.flush()
            XCTAssertEqual(try storedCount(store), 1 + n, "after-\(n) committed by flush()")
        }
    }
}

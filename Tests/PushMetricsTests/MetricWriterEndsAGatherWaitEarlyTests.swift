import Foundation
@testable import PushMetrics
import Synchronization
import TestSupport
import XCTest

/// A busy writer's wait for companions of a small batch ends as soon as as many records are
/// pending as its last commit held (docs/metrics.md, "Acknowledgement"): clients waiting for
/// their answers come back together, and waiting out the rest of the time would hold every one
/// of them back. The wait here is ten minutes, so only the early end can commit the records.
final class MetricWriterEndsAGatherWaitEarlyTests: XCTestCase {
    func testAWaitEndsOnceAsManyArePendingAsTheLastCommitHeld() async throws {
        let directory = Fixtures.temporaryDirectory("metric-writer-gather")
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try MetricStore(path: directory.appendingPathComponent("gather.sqlite").path)
        let writer = try MetricWriter(store: store, gatherWait: .seconds(600))
        let lastCommit = MetricWriter.gatherFrom + 8
        writer.assumeLastCommit(of: lastCommit)
        let committed = Atomic(0)
        func submit(_ n: Int) {
            let record = MetricRequestRecord(receivedAt: Date(timeIntervalSince1970: 1_775_126_768), route: .track, status: 200,
                                             body: Array("r\(n)".utf8))
            writer.submit(record, metrics: [ReportedMetric(route: .track, deliveryID: "d\(n)", metric: .delivered, recipient: "t")]) { _, error in
                if error == nil { committed.add(1, ordering: .relaxed) }
            }
        }
        // One record: a small batch after a busy commit, so the writer starts waiting.
        submit(0)
        let waiting = await Poll.until { writer.gatherWaits == 1 }
        XCTAssertTrue(waiting, "the busy writer waits for companions")
        for n in 1..<(lastCommit - 1) { submit(n) }
        XCTAssertEqual(committed.load(ordering: .relaxed), 0, "one short of the last commit: still waiting")
        submit(lastCommit - 1)
        let done = await Poll.until { committed.load(ordering: .relaxed) == lastCommit }
        XCTAssertTrue(done, "\(committed.load(ordering: .relaxed)) of \(lastCommit) committed before the wait's ten minutes")
        XCTAssertEqual(writer.gatherWaits, 1)
        XCTAssertEqual(try store.database.query("SELECT COUNT(*) FROM metrics").first?.int(0), lastCommit)
    }
}

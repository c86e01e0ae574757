import Foundation
import PushHTTP
@testable import PushMetrics
import Synchronization
import TestSupport
import XCTest

/// The answers of one group commit go back together (docs/metrics.md, "Acknowledgement"): every
/// completion of the commit adds its answer to one `ResponseBatch`, sent once all of them ran —
/// one hand-over per event loop, not one per answer.
final class MetricWriterSendsACommitsAnswersTogetherTests: XCTestCase {
    func testEveryAnswerOfACommitIsSentAfterAllItsCompletionsRan() throws {
        let directory = Fixtures.temporaryDirectory("metric-writer-answers")
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try MetricStore(path: directory.appendingPathComponent("answers.sqlite").path)
        // A long delay: nothing is committed until `flush()`, so the three records share one commit.
        let writer = try MetricWriter(store: store, delay: .seconds(600))
        let completed = Atomic(0)
        let completedWhenAnswered = Mutex<[Int]>([])
        for n in 0..<3 {
            let record = MetricRequestRecord(receivedAt: Date(timeIntervalSince1970: 1_775_126_768), route: .track, status: 200,
                                             body: Array("r\(n)".utf8))
            let metric = ReportedMetric(route: .track, deliveryID: "d\(n)", metric: .delivered, recipient: "t")
            writer.submit(record, metrics: [metric]) { _, error, answers in
                XCTAssertNil(error)
                completed.add(1, ordering: .relaxed)
                answers.add(.text(200, ""), for: CallbackResponder { _ in
                    completedWhenAnswered.withLock { $0.append(completed.load(ordering: .relaxed)) }
                })
            }
        }
        writer.flush()
        XCTAssertEqual(completedWhenAnswered.withLock { $0 }, [3, 3, 3], "each answer went out after the commit's three completions")
    }
}

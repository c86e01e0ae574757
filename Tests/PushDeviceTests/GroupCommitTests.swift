import Foundation
@testable import PushDevice
import XCTest

/// Group commit: changes that arrive while a commit runs go into the next one, together, and
/// every caller gets its own change's outcome only after that commit.
final class GroupCommitTests: XCTestCase {
    /// A commit that blocks its first batch until released, recording every batch.
    private final class GatedCommit: @unchecked Sendable {
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        private let lock = NSLock()
        private var batches: [[Int]] = []  // protected by `lock`
        var recorded: [[Int]] { lock.withLock { batches } }

        func commit(_ batch: [Int]) -> [Result<Int, PendingMetricStoreError>] {
            let first = lock.withLock { () -> Bool in
                batches.append(batch)
                return batches.count == 1
            }
            if first {
                entered.signal()
                release.wait()
            }
            return batch.map { $0 < 0 ? .failure(.writeFailed(path: "batch", errno: EIO)) : .success($0 * 10) }
        }
    }

    private func waitUntil(_ what: String, _ condition: () -> Bool) {
        let giveUp = Date().addingTimeInterval(30)  // a hang guard, not a timing assertion
        while !condition() {
            guard Date() < giveUp else { return XCTFail("gave up waiting until \(what)") }
            usleep(1000)
        }
    }

    func testChangesArrivingDuringACommitShareTheNextOne() {
        let gate = GatedCommit()
        let commits = GroupCommit<Int, Int> { gate.commit($0) }
        let outcomes = Outcomes()
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) { outcomes.set(0, try? commits.perform(0)) }
        gate.entered.wait()  // the first caller leads a batch of one and is inside its commit
        for n in 1...5 {
            DispatchQueue.global().async(group: group) { outcomes.set(n, try? commits.perform(n)) }
        }
        waitUntil("five changes wait for the next commit") { commits.queuedCount == 5 }
        gate.release.signal()
        group.wait()

        XCTAssertEqual(gate.recorded.count, 2, "the five waiting changes must share one commit")
        XCTAssertEqual(gate.recorded.first, [0])
        XCTAssertEqual(Set(gate.recorded.last ?? []), Set(1...5))
        for n in 0...5 { XCTAssertEqual(outcomes.get(n), n * 10, "caller \(n) must get its own change's outcome") }
        XCTAssertEqual(commits.statistics, GroupCommitStats(batches: 2, changes: 6, largestBatch: 5))
    }

    func testAFailedCommitFailsOnlyItsOwnChanges() {
        let commits = GroupCommit<Int, Int> { batch in
            batch.map { $0 < 0 ? .failure(.writeFailed(path: "f", errno: EIO)) : .success($0) }
        }
        XCTAssertThrowsError(try commits.perform(-1)) { error in
            XCTAssertEqual(error as? PendingMetricStoreError, .writeFailed(path: "f", errno: EIO))
        }
        XCTAssertEqual(try commits.perform(7), 7)
    }

    private final class Outcomes: @unchecked Sendable {
        private let lock = NSLock()
        private var values: [Int: Int] = [:]  // protected by `lock`
        func set(_ key: Int, _ value: Int?) { lock.withLock { values[key] = value } }
        func get(_ key: Int) -> Int? { lock.withLock { values[key] } }
    }
}

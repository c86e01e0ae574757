import Foundation
import PushCore
import PushRelay
import PushStore
import TestSupport
import XCTest

final class SQLitePushQueueTests: XCTestCase {
    private var directory: URL!

    override func setUp() {
        directory = Fixtures.temporaryDirectory("relay-queue")
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: directory)
    }

    private var factory: PushQueueContract.Factory {
        let path = directory.appendingPathComponent("queue.sqlite").path
        return { time, capacity in
            try SQLitePushQueue(path: path, configuration: .init(capacity: capacity), time: time)
        }
    }

    func testClaimsEveryTargetOnce() async throws { try await PushQueueContract.claimsEveryTargetOnce(factory) }
    func testIdempotencyKeyReplaysAndConflicts() async throws { try await PushQueueContract.idempotencyKeyReplaysAndConflicts(factory) }
    func testFullQueueRefusesWholeSubmission() async throws { try await PushQueueContract.fullQueueRefusesWholeSubmission(factory) }
    func testExpiredLeaseIsClaimedAgain() async throws { try await PushQueueContract.expiredLeaseIsClaimedAgain(factory) }
    func testRenewedLeaseOutlastsItsFirstEnd() async throws { try await PushQueueContract.renewedLeaseOutlastsItsFirstEnd(factory) }
    func testSecondFinalResultIsADuplicate() async throws { try await PushQueueContract.secondFinalResultIsADuplicate(factory) }
    func testBatchReportNamesItsDuplicates() async throws { try await PushQueueContract.batchReportNamesItsDuplicates(factory) }
    func testRescheduledTargetWaitsForItsTime() async throws { try await PushQueueContract.rescheduledTargetWaitsForItsTime(factory) }
    func testDeliveriesAndInvalidTokens() async throws { try await PushQueueContract.deliveriesAndInvalidTokens(factory) }
    func testOutcomesReadBackAsRecorded() async throws { try await PushQueueContract.outcomesReadBackAsRecorded(factory) }

    /// Each target's row is written with its push's row, app and time bound once and the rest
    /// per row, and read back in place: every field of every target of two pushes comes back as
    /// enqueued (kinds, environments given or not, texts byte for byte), and after a reschedule
    /// with its attempts.
    func testClaimsReadBackEveryTargetAsEnqueued() async throws {
        let time = ManualTimeSource()
        let queue = try await factory(time, 1_000)
        let first: [PushTarget] = [
            PushTarget(kind: .apnsToken, value: String(repeating: "ab", count: 32), environment: .production),
            PushTarget(kind: .apnsToken, value: String(repeating: "0f", count: 32)),
            PushTarget(kind: .fcmToken, value: "fcm:" + String(repeating: "x", count: 150)),
            PushTarget(kind: .fcmTopic, value: "news"),
            PushTarget(kind: .fcmCondition, value: "'über' in topics && 'ios' in topics"),
            PushTarget(kind: .apnsToken, value: String(repeating: "cd", count: 32), environment: .sandbox),
        ]
        let second = [PushTarget(kind: .fcmToken, value: ""), PushTarget(kind: .apnsToken, value: String(repeating: "9e", count: 32))]
        for (id, app, targets) in [("p_1", "demo", first), ("p_2", "other", second)] as [(PushID, String, [PushTarget])] {
            _ = try await queue.enqueue(PushSubmission(id: id, app: app, content: Array("{\"push\":\"\(id)\"}".utf8), targets: targets,
                                                       idempotencyKey: nil, requestFingerprint: nil, acceptedAt: time.now))
        }
        func check(_ claims: [ClaimedTarget], attempts: Int) {
            let sorted = claims.sorted { ($0.pushID, $0.index) < ($1.pushID, $1.index) }
            XCTAssertEqual(sorted.map(\.target), first + second)
            XCTAssertEqual(sorted.map(\.index), Array(0..<first.count) + Array(0..<second.count))
            XCTAssertEqual(sorted.map(\.pushID), Array(repeating: "p_1", count: first.count) + Array(repeating: "p_2", count: second.count))
            XCTAssertEqual(sorted.map(\.app), Array(repeating: "demo", count: first.count) + Array(repeating: "other", count: second.count))
            XCTAssertEqual(sorted.map { String(decoding: $0.content, as: UTF8.self) },
                           Array(repeating: "{\"push\":\"p_1\"}", count: first.count) + Array(repeating: "{\"push\":\"p_2\"}", count: second.count))
            XCTAssertEqual(sorted.map(\.attempts), Array(repeating: attempts, count: first.count + second.count))
        }
        let claims = try await queue.claim(consumer: "w", limit: 100, lease: .seconds(30))
        check(claims, attempts: 0)
        try await queue.reschedule(claims.map { TargetRetry($0, attempts: 2, lastError: "503", notBefore: time.now) })
        check(try await queue.claim(consumer: "w", limit: 100, lease: .seconds(30)), attempts: 2)
        await queue.close()
    }

    /// Rule 6 on SQLite: after the process is gone, a reopened queue hands out what was claimed
    /// but not finished, and keeps what was finished. Claims are not stored, so the reopened
    /// queue has none to release: they are waiting from the start.
    func testReopenedQueueResumesClaimedTargets() async throws {
        let time = ManualTimeSource()
        let path = directory.appendingPathComponent("queue.sqlite").path
        let before = try SQLitePushQueue(path: path, time: time)
        _ = try await before.enqueue(PushQueueContract.submission("p_1", tokens: 4, at: time.now))
        let claims = try await before.claim(consumer: "w", limit: 4, lease: .seconds(300))
        try await before.complete([PushQueueContract.sent(claims[0], at: time.now)])
        await before.close()

        let after = try SQLitePushQueue(path: path, time: time)
        let reopened = try await after.depth()
        XCTAssertEqual(reopened, QueueDepth(waiting: 3, claimed: 0, finished: 1))
        let released = try await after.recoverAbandoned()
        XCTAssertEqual(released, 0)
        let again = try await after.claim(consumer: "w", limit: 10, lease: .seconds(300))
        XCTAssertEqual(again.map(\.index).sorted(), [1, 2, 3])
        await after.close()
    }

    /// A reopened queue reads its unfinished targets in pages of 10,000: more than two pages,
    /// with finished targets between them, come back each once.
    func testReopenedQueueReadsEveryUnfinishedTargetAcrossPages() async throws {
        let time = ManualTimeSource()
        let path = directory.appendingPathComponent("queue.sqlite").path
        let before = try SQLitePushQueue(path: path, time: time)
        for (i, size) in [10_000, 10_003, 2].enumerated() {
            _ = try await before.enqueue(PushQueueContract.submission(PushID("p_\(i)"), tokens: size, at: time.now))
        }
        let first = try await before.claim(consumer: "w", limit: 5, lease: .seconds(300))
        try await before.complete(first.prefix(3).map { PushQueueContract.sent($0, at: time.now) })
        await before.close()

        let after = try SQLitePushQueue(path: path, time: time)
        let depth = try await after.depth()
        XCTAssertEqual(depth, QueueDepth(waiting: 20_002, claimed: 0, finished: 3))
        var seen = Set<String>()
        while true {
            let claims = try await after.claim(consumer: "w", limit: 512, lease: .seconds(300))
            if claims.isEmpty { break }
            for claim in claims { XCTAssertTrue(seen.insert("\(claim.pushID)#\(claim.index)").inserted, "handed out twice: \(claim.pushID)#\(claim.index)") }
        }
        XCTAssertEqual(seen.count, 20_002)
        XCTAssertFalse(seen.contains("p_0#0"), "a finished target is not handed out")
        await after.close()
    }

    /// A target whose lease ran out and that got its final result while ready again (a late
    /// answer) is not handed out again, and counts once.
    func testLateResultOfAReleasedTargetIsNotClaimedAgain() async throws {
        let time = ManualTimeSource()
        let queue = try SQLitePushQueue(path: directory.appendingPathComponent("queue.sqlite").path, time: time)
        _ = try await queue.enqueue(PushQueueContract.submission("p_1", tokens: 2, at: time.now))
        let claims = try await queue.claim(consumer: "w", limit: 2, lease: .seconds(1))
        let released = try await queue.recoverAbandoned()
        XCTAssertEqual(released, 2)
        let late = try await queue.complete([PushQueueContract.sent(claims[0], at: time.now)])
        XCTAssertEqual(late.recorded, 1)
        let depth = try await queue.depth()
        XCTAssertEqual(depth, QueueDepth(waiting: 1, claimed: 0, finished: 1))
        let again = try await queue.claim(consumer: "w", limit: 10, lease: .seconds(30))
        XCTAssertEqual(again.map(\.index), [1], "the finished target must not be handed out again")
        try await queue.complete([PushQueueContract.sent(again[0], at: time.now)])
        let next = try await queue.nextReadyDate()
        XCTAssertNil(next, "nothing is left")
        let status = try await queue.status(of: "p_1", includeTargets: true)
        XCTAssertEqual(status?.targets.map(\.phase), [.sent, .sent])
        await queue.close()
    }

    /// Group commit: concurrent enqueues share transactions, and each returns only once its
    /// push is readable from a separate connection (i.e. committed).
    func testConcurrentEnqueuesShareCommits() async throws {
        let path = directory.appendingPathComponent("queue.sqlite").path
        let queue = try SQLitePushQueue(path: path)
        let count = 200
        try await withThrowingTaskGroup(of: Void.self) { group in
            for i in 0..<count {
                group.addTask {
                    _ = try await queue.enqueue(PushQueueContract.submission(PushID("p_\(i)"), tokens: 2, at: Date()))
                    let other = try SQLiteDatabaseProbe(path: path)
                    XCTAssertEqual(try other.targetCount(push: "p_\(i)"), 2)
                }
            }
            try await group.waitForAll()
        }
        let stats = queue.commitStatistics
        XCTAssertEqual(stats.writes, count)
        XCTAssertLessThan(stats.commits, count, "concurrent writes should have shared at least one commit")
        XCTAssertEqual(stats.synced, stats.commits, "a commit that queues pushes is synced before it returns")
        let depth = try await queue.depth()
        XCTAssertEqual(depth.waiting, 2 * count)
        await queue.close()
    }

    /// With `fsyncEveryCommit`, a commit of results is not synced by itself (the one that
    /// queued the push is); the WAL is synced for it within `resultSyncDelay`, once for every
    /// result commit before it.
    func testResultCommitsAreSyncedWithinTheDelay() async throws {
        let time = ManualTimeSource()
        let queue = try SQLitePushQueue(path: directory.appendingPathComponent("queue.sqlite").path,
                                        configuration: .init(resultSyncDelay: .milliseconds(100)), time: time)
        _ = try await queue.enqueue(PushQueueContract.submission("p_1", tokens: 3, at: time.now))
        let claims = try await queue.claim(consumer: "w", limit: 3, lease: .seconds(300))
        try await queue.complete([PushQueueContract.sent(claims[0], at: time.now)])
        try await queue.complete([PushQueueContract.sent(claims[1], at: time.now)])
        let written = queue.commitStatistics
        XCTAssertEqual(written.commits, 3)
        XCTAssertEqual(written.synced, 1, "only the enqueue's commit syncs by itself")
        let deadline = Date().addingTimeInterval(10)
        while queue.commitStatistics.resultSyncs == 0, Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
        XCTAssertEqual(queue.commitStatistics.resultSyncs, 1, "one WAL sync covers both result commits")
        // Results still read back after the sync, and the next enqueue syncs by itself again.
        _ = try await queue.enqueue(PushQueueContract.submission("p_2", tokens: 1, at: time.now))
        XCTAssertEqual(queue.commitStatistics.synced, 2)
        let status = try await queue.status(of: "p_1", includeTargets: false)
        XCTAssertEqual(status?.sent, 2)
        await queue.close()
    }

    /// `queue.fsync: false`: no commit syncs, and no WAL sync is scheduled for results.
    func testUnsyncedQueueNeverSyncs() async throws {
        let time = ManualTimeSource()
        let queue = try SQLitePushQueue(path: directory.appendingPathComponent("queue.sqlite").path,
                                        configuration: .init(fsyncEveryCommit: false, resultSyncDelay: .milliseconds(10)), time: time)
        // A synced queue beside it, its result commit made after this one's with the same delay:
        // once its WAL sync has run (the event waited for, no fixed sleep), a sync this queue had
        // scheduled would have been due first.
        let control = try SQLitePushQueue(path: directory.appendingPathComponent("control.sqlite").path,
                                          configuration: .init(fsyncEveryCommit: true, resultSyncDelay: .milliseconds(10)), time: time)
        for q in [queue, control] {
            _ = try await q.enqueue(PushQueueContract.submission("p_1", tokens: 1, at: time.now))
            let claims = try await q.claim(consumer: "w", limit: 1, lease: .seconds(300))
            try await q.complete([PushQueueContract.sent(claims[0], at: time.now)])
        }
        let controlSynced = await Poll.until(timeout: 20, interval: .milliseconds(5)) { control.commitStatistics.resultSyncs == 1 }
        XCTAssertTrue(controlSynced, "the synced queue's result sync never ran")
        await control.close()
        let stats = queue.commitStatistics
        XCTAssertEqual(stats.commits, 2)
        XCTAssertEqual(stats.synced, 0)
        XCTAssertEqual(stats.resultSyncs, 0)
        await queue.close()
    }

    /// Under a steady stream of commits, with a read held open now and then (nothing after its
    /// snapshot can be copied back meanwhile), the WAL keeps starting over and its file stays far
    /// below what the commits wrote: the writer's backstop checkpoint lets it start over.
    /// Without it (checkpoints beside the writer only) it grew with every commit.
    func testWALStaysBoundedUnderSteadyCommits() async throws {
        let time = ManualTimeSource()
        let path = directory.appendingPathComponent("queue.sqlite").path
        let backstop = 64
        let queue = try SQLitePushQueue(path: path, configuration: .init(fsyncEveryCommit: false, walBackstopPages: backstop), time: time)
        let outsider = try SQLiteDatabase(path: path)
        defer { outsider.close() }
        func walBytes() -> Int { ((try? FileManager.default.attributesOfItem(atPath: path + "-wal"))?[.size] as? Int) ?? 0 }
        var largest = 0
        let rounds = 10, commitsPerRound = 100, heldFor = 10
        for round in 0..<rounds {
            try outsider.execute("BEGIN")
            _ = try outsider.query("SELECT count(*) FROM targets")
            for i in 0..<commitsPerRound {
                if i == heldFor { try outsider.execute("COMMIT") }
                _ = try await queue.enqueue(PushQueueContract.submission(PushID("p_\(round)_\(i)"), tokens: 20, at: time.now))
                largest = max(largest, walBytes())
            }
        }
        // The WAL header's checkpoint sequence number (bytes 12-15, big-endian) counts the
        // times the WAL started over.
        let header = try XCTUnwrap(FileManager.default.contents(atPath: path + "-wal")?.prefix(16))
        let restarts = header.suffix(4).reduce(0) { $0 << 8 | Int($1) }
        XCTAssertGreaterThanOrEqual(restarts, 5, "the WAL started over \(restarts) times in \(rounds * commitsPerRound) commits")
        // Typically 0.6-1.0 MB here (the backstop, what the held read let pile up, commits whose
        // backstop met the checkpoint thread's checkpoint); on a loaded machine once 9.3 MB in 16
        // runs. Without the backstop: 18.7 MB, every frame of the run, and no restart.
        let bound = 12 << 20
        XCTAssertLessThanOrEqual(largest, bound, "the WAL grew to \(largest) bytes over \(rounds * commitsPerRound) commits")
        let depth = try await queue.depth()
        XCTAssertEqual(depth.waiting, rounds * commitsPerRound * 20)
        await queue.close()
    }

    func testClosedQueueRefusesWrites() async throws {
        let queue = try SQLitePushQueue(path: directory.appendingPathComponent("queue.sqlite").path)
        await queue.close()
        do {
            _ = try await queue.enqueue(PushQueueContract.submission("p_1", tokens: 1, at: Date()))
            XCTFail("a closed queue must refuse writes")
        } catch {
            XCTAssertEqual(error, .closed)
        }
    }
}

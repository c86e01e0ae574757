import Foundation
import PushCore
import PushRelay
import XCTest

/// The `PushQueue` contract (rules 1–6 in PushQueue.swift) as checks any implementation runs:
/// a test class makes a fresh queue per check and calls these (the SQLite queue in
/// `SQLitePushQueueTests`; the Redis Streams queue reuses them).
enum PushQueueContract {
    /// Makes an empty queue reading time from `time`, holding at most `capacity` unfinished targets.
    typealias Factory = @Sendable (_ time: ManualTimeSource, _ capacity: Int) async throws -> any PushQueue

    static let lease: Duration = .seconds(30)

    static func submission(_ id: PushID, app: String = "demo", tokens: Int, key: String? = nil, fingerprint: String? = nil,
                           at date: Date) -> PushSubmission {
        PushSubmission(id: id, app: app, content: Array("{\"push\":\"\(id)\"}".utf8),
                       targets: (0..<tokens).map { PushTarget(kind: .apnsToken, value: String(format: "%064x", $0)) },
                       idempotencyKey: key, requestFingerprint: fingerprint, acceptedAt: date)
    }

    static func sent(_ claim: ClaimedTarget, at date: Date) -> TargetCompletion {
        TargetCompletion(claim, TargetOutcome(status: .sent, httpStatus: 200, providerID: "id-\(claim.index)",
                                              attempts: claim.attempts + 1, finishedAt: date))
    }

    /// Rule 1 and 4: every enqueued target is claimed once, with its push's content, and not again.
    static func claimsEveryTargetOnce(_ make: Factory) async throws {
        let time = ManualTimeSource()
        let queue = try await make(time, 1_000)
        let receipt = try await queue.enqueue(submission("p_1", tokens: 5, at: time.now))
        XCTAssertEqual(receipt, EnqueueReceipt(pushID: "p_1", targetCount: 5, acceptedAt: time.now, isReplay: false))
        let depth = try await queue.depth()
        XCTAssertEqual(depth, QueueDepth(waiting: 5, claimed: 0, finished: 0))
        let first = try await queue.claim(consumer: "w1", limit: 3, lease: lease)
        let second = try await queue.claim(consumer: "w2", limit: 10, lease: lease)
        let third = try await queue.claim(consumer: "w3", limit: 10, lease: lease)
        XCTAssertEqual(first.count, 3)
        XCTAssertEqual(second.count, 2)
        XCTAssertTrue(third.isEmpty, "a claimed target must not be handed out again while its lease runs")
        let all = first + second
        XCTAssertEqual(all.map(\.index).sorted(), [0, 1, 2, 3, 4])
        XCTAssertEqual(Set(all.map(\.target.value)).count, 5)
        XCTAssertTrue(all.allSatisfy { $0.pushID == "p_1" && $0.app == "demo" && $0.content == Array("{\"push\":\"p_1\"}".utf8) })
        let after = try await queue.depth()
        XCTAssertEqual(after, QueueDepth(waiting: 0, claimed: 5, finished: 0))
        await queue.close()
    }

    /// Rule 2: the same key replays the first receipt and queues nothing; another request with it conflicts.
    static func idempotencyKeyReplaysAndConflicts(_ make: Factory) async throws {
        let time = ManualTimeSource()
        let queue = try await make(time, 1_000)
        let first = try await queue.enqueue(submission("p_a", tokens: 3, key: "k1", fingerprint: "f1", at: time.now))
        time.advance(by: 5)
        let again = try await queue.enqueue(submission("p_b", tokens: 3, key: "k1", fingerprint: "f1", at: time.now))
        XCTAssertEqual(again.pushID, "p_a")
        XCTAssertEqual(again.targetCount, 3)
        XCTAssertEqual(again.acceptedAt, first.acceptedAt)
        XCTAssertTrue(again.isReplay)
        do {
            _ = try await queue.enqueue(submission("p_c", tokens: 1, key: "k1", fingerprint: "other", at: time.now))
            XCTFail("a reused key with another request must conflict")
        } catch {
            XCTAssertEqual(error, .idempotencyConflict(key: "k1", pushID: "p_a"))
        }
        // The key is per app: another app may use it.
        let otherApp = try await queue.enqueue(submission("p_d", app: "other", tokens: 1, key: "k1", fingerprint: "f9", at: time.now))
        XCTAssertFalse(otherApp.isReplay)
        let depth = try await queue.depth()
        XCTAssertEqual(depth.waiting, 4, "the replay and the conflict queued nothing")
        let missing = try await queue.status(of: "p_b", includeTargets: false)
        XCTAssertNil(missing)
        await queue.close()
    }

    /// Rule 3: a submission that does not fit is refused whole.
    static func fullQueueRefusesWholeSubmission(_ make: Factory) async throws {
        let time = ManualTimeSource()
        let queue = try await make(time, 10)
        _ = try await queue.enqueue(submission("p_1", tokens: 8, at: time.now))
        do {
            _ = try await queue.enqueue(submission("p_2", tokens: 3, at: time.now))
            XCTFail("8 + 3 targets must not fit a capacity of 10")
        } catch {
            XCTAssertEqual(error, .full(unfinished: 8, incoming: 3, capacity: 10))
        }
        let refused = try await queue.status(of: "p_2", includeTargets: false)
        XCTAssertNil(refused)
        // Finished targets free room.
        let claims = try await queue.claim(consumer: "w", limit: 8, lease: lease)
        try await queue.complete(claims.map { sent($0, at: time.now) })
        let fits = try await queue.enqueue(submission("p_3", tokens: 10, at: time.now))
        XCTAssertEqual(fits.targetCount, 10)
        await queue.close()
    }

    /// Rule 4: a lease that ran out makes the target ready for another consumer.
    static func expiredLeaseIsClaimedAgain(_ make: Factory) async throws {
        let time = ManualTimeSource()
        let queue = try await make(time, 1_000)
        _ = try await queue.enqueue(submission("p_1", tokens: 2, at: time.now))
        let first = try await queue.claim(consumer: "dead", limit: 10, lease: .seconds(10))
        XCTAssertEqual(first.count, 2)
        time.advance(by: 9)
        let early = try await queue.claim(consumer: "w2", limit: 10, lease: .seconds(10))
        XCTAssertTrue(early.isEmpty)
        time.advance(by: 2)
        let again = try await queue.claim(consumer: "w2", limit: 10, lease: .seconds(10))
        XCTAssertEqual(again.map(\.index).sorted(), [0, 1])
        await queue.close()
    }

    /// Rule 4 with renewal: a consumer that still holds its targets (waiting for a send budget)
    /// renews their lease, so they are not handed to another consumer at the first lease's end;
    /// once it stops renewing, the lease runs out as any other.
    static func renewedLeaseOutlastsItsFirstEnd(_ make: Factory) async throws {
        let time = ManualTimeSource()
        let queue = try await make(time, 1_000)
        _ = try await queue.enqueue(submission("p_1", tokens: 3, at: time.now))
        let held = try await queue.claim(consumer: "slow", limit: 10, lease: .seconds(10))
        XCTAssertEqual(held.count, 3)
        time.advance(by: 8)
        try await queue.renew(receipts: held.map(\.receipt), lease: .seconds(10))
        time.advance(by: 8)
        let during = try await queue.claim(consumer: "other", limit: 10, lease: .seconds(10))
        XCTAssertTrue(during.isEmpty, "a renewed lease (to 18 s) still runs at 16 s")
        time.advance(by: 3)
        let after = try await queue.claim(consumer: "other", limit: 10, lease: .seconds(10))
        XCTAssertEqual(after.map(\.index).sorted(), [0, 1, 2], "not renewed again: ready at 19 s")
        await queue.close()
    }

    /// Rule 5: the first final result stays; a second one is counted as a duplicate.
    static func secondFinalResultIsADuplicate(_ make: Factory) async throws {
        let time = ManualTimeSource()
        let queue = try await make(time, 1_000)
        _ = try await queue.enqueue(submission("p_1", tokens: 1, at: time.now))
        let slow = try await queue.claim(consumer: "slow", limit: 1, lease: .seconds(1))
        time.advance(by: 2)
        let fast = try await queue.claim(consumer: "fast", limit: 1, lease: .seconds(30))
        XCTAssertEqual(fast.count, 1)
        let firstReport = try await queue.complete([sent(fast[0], at: time.now)])
        XCTAssertEqual(firstReport, CompletionReport(recorded: 1, duplicates: 0, finishedPushes: ["p_1"]), "the last result finishes the push")
        let late = TargetCompletion(slow[0], TargetOutcome(status: .failed, httpStatus: 500, reason: "InternalServerError",
                                                           attempts: 1, finishedAt: time.now))
        let secondReport = try await queue.complete([late])
        XCTAssertEqual(secondReport, CompletionReport(recorded: 0, duplicates: 1, ignoredPositions: [0]))
        let status = try await queue.status(of: "p_1", includeTargets: true)
        XCTAssertEqual(status?.sent, 1)
        XCTAssertEqual(status?.failed, 0)
        XCTAssertEqual(status?.isFinished, true)
        XCTAssertEqual(status?.targets.first?.phase, .sent)
        XCTAssertEqual(status?.targets.first?.outcome?.providerID, "id-0")
        let depth = try await queue.depth()
        XCTAssertEqual(depth, QueueDepth(waiting: 0, claimed: 0, finished: 1))
        await queue.close()
    }

    /// Rule 5 for a batch of several pushes' results, as the workers write them: the report names
    /// the positions of the duplicates, counts each push's sent and failed results, and names
    /// every push the batch finished.
    static func batchReportNamesItsDuplicates(_ make: Factory) async throws {
        let time = ManualTimeSource()
        let queue = try await make(time, 1_000)
        _ = try await queue.enqueue(submission("p_1", tokens: 3, at: time.now))
        _ = try await queue.enqueue(submission("p_2", tokens: 2, at: time.now))
        _ = try await queue.enqueue(submission("p_3", tokens: 2, at: time.now))
        let slow = try await queue.claim(consumer: "slow", limit: 10, lease: .seconds(1))
        XCTAssertEqual(slow.count, 7)
        time.advance(by: 2)
        let fast = try await queue.claim(consumer: "fast", limit: 10, lease: .seconds(30))
        XCTAssertEqual(fast.count, 7)
        func target(_ claims: [ClaimedTarget], _ push: PushID, _ index: Int) -> ClaimedTarget {
            claims.first { $0.pushID == push && $0.index == index }!
        }
        let first = try await queue.complete([sent(target(fast, "p_1", 0), at: time.now), sent(target(fast, "p_2", 1), at: time.now)])
        XCTAssertEqual(first, CompletionReport(recorded: 2, duplicates: 0))
        let failed = TargetCompletion(target(slow, "p_1", 2), TargetOutcome(status: .failed, httpStatus: 410, reason: "Unregistered",
                                                                           tokenInvalid: true, attempts: 1, finishedAt: time.now))
        let batch = [sent(target(slow, "p_1", 0), at: time.now), sent(target(slow, "p_1", 1), at: time.now), failed,
                     sent(target(slow, "p_2", 0), at: time.now), sent(target(slow, "p_2", 1), at: time.now),
                     sent(target(slow, "p_3", 0), at: time.now)]
        let report = try await queue.complete(batch)
        XCTAssertEqual(report, CompletionReport(recorded: 4, duplicates: 2, ignoredPositions: [0, 4], finishedPushes: ["p_1", "p_2"]),
                       "p_3 still waits for its target 1")
        let p1 = try await queue.status(of: "p_1", includeTargets: false)
        XCTAssertEqual(p1.map { [$0.sent, $0.failed] }, [2, 1])
        let p2 = try await queue.status(of: "p_2", includeTargets: false)
        XCTAssertEqual(p2.map { [$0.sent, $0.failed] }, [2, 0])
        let last = try await queue.complete([sent(target(fast, "p_3", 1), at: time.now)])
        XCTAssertEqual(last, CompletionReport(recorded: 1, duplicates: 0, finishedPushes: ["p_3"]))
        let depth = try await queue.depth()
        XCTAssertEqual(depth, QueueDepth(waiting: 0, claimed: 0, finished: 7))
        await queue.close()
    }

    /// Rule 5: a rescheduled target waits until `notBefore`, keeping its attempts and last error.
    static func rescheduledTargetWaitsForItsTime(_ make: Factory) async throws {
        let time = ManualTimeSource()
        let queue = try await make(time, 1_000)
        _ = try await queue.enqueue(submission("p_1", tokens: 1, at: time.now))
        let claim = try await queue.claim(consumer: "w", limit: 1, lease: lease)
        try await queue.reschedule([TargetRetry(claim[0], attempts: 1, lastError: "503 ServiceUnavailable",
                                                notBefore: time.now.addingTimeInterval(60))])
        let waiting = try await queue.status(of: "p_1", includeTargets: true)
        XCTAssertEqual(waiting?.targets.first?.phase, .waiting)
        XCTAssertEqual(waiting?.targets.first?.attempts, 1)
        XCTAssertEqual(waiting?.targets.first?.lastError, "503 ServiceUnavailable")
        let next = try await queue.nextReadyDate()
        XCTAssertEqual(next, time.now.addingTimeInterval(60))
        let tooEarly = try await queue.claim(consumer: "w", limit: 1, lease: lease)
        XCTAssertTrue(tooEarly.isEmpty)
        time.advance(by: 60)
        let retry = try await queue.claim(consumer: "w", limit: 1, lease: lease)
        XCTAssertEqual(retry.first?.attempts, 1)
        await queue.close()
    }

    /// The read side: the delivery log per app and token, and the invalid-token feed.
    static func deliveriesAndInvalidTokens(_ make: Factory) async throws {
        let time = ManualTimeSource()
        let queue = try await make(time, 1_000)
        _ = try await queue.enqueue(submission("p_1", tokens: 3, at: time.now))
        let claims = try await queue.claim(consumer: "w", limit: 3, lease: lease)
        let start = time.now
        time.advance(by: 1)
        let dead = TargetCompletion(claims[1], TargetOutcome(status: .failed, httpStatus: 410, reason: "Unregistered",
                                                             tokenInvalid: true, attempts: 1, finishedAt: time.now))
        let partial = try await queue.complete([sent(claims[0], at: time.now), dead])
        XCTAssertEqual(partial.finishedPushes, [], "one target of p_1 is still unfinished")
        time.advance(by: 1)
        let last = try await queue.complete([sent(claims[2], at: time.now)])
        XCTAssertEqual(last.finishedPushes, ["p_1"])
        let all = try await queue.deliveries(app: "demo", token: nil, since: nil, limit: 10)
        XCTAssertEqual(Set(all.map(\.index)), [0, 1, 2])
        XCTAssertEqual(all.count, 3)
        XCTAssertEqual(all.first?.index, 2, "newest first")
        let one = try await queue.deliveries(app: "demo", token: claims[1].target.value, since: nil, limit: 10)
        XCTAssertEqual(one.count, 1)
        XCTAssertEqual(one.first?.outcome.reason, "Unregistered")
        let recent = try await queue.deliveries(app: "demo", token: nil, since: start.addingTimeInterval(1.5), limit: 10)
        XCTAssertEqual(recent.map(\.index), [2])
        let otherApp = try await queue.deliveries(app: "other", token: nil, since: nil, limit: 10)
        XCTAssertTrue(otherApp.isEmpty)
        let invalid = try await queue.invalidTokens(app: "demo", since: nil, limit: 10)
        XCTAssertEqual(invalid, [InvalidToken(token: claims[1].target.value, kind: .apnsToken, reason: "Unregistered",
                                              pushID: "p_1", reportedAt: start.addingTimeInterval(1))])
        await queue.close()
    }

    /// A final result reads back exactly as it was recorded, from the push's status and from
    /// the delivery log: nil fields, a reason with quotes, backslashes, control characters
    /// (the unit and record separators the Redis queue joins its log lines with) and
    /// non-ASCII text, whole and fractional times.
    static func outcomesReadBackAsRecorded(_ make: Factory) async throws {
        let time = ManualTimeSource()
        let queue = try await make(time, 1_000)
        _ = try await queue.enqueue(submission("p_1", tokens: 4, at: time.now))
        let claims = try await queue.claim(consumer: "w", limit: 4, lease: lease).sorted { $0.index < $1.index }
        XCTAssertEqual(claims.count, 4)
        let outcomes = [
            TargetOutcome(status: .sent, httpStatus: 200, providerID: "4F3C1E2A-9B7D-4C61-8E15-0D2B6A9F7C30", attempts: 1,
                          finishedAt: Date(timeIntervalSince1970: 1_796_540_580.488542)),
            TargetOutcome(status: .failed, reason: "connection reset: \"peer\" \\ closed\n\u{1f}\u{1e}\t über 🚀", attempts: 3,
                          finishedAt: Date(timeIntervalSince1970: 1_796_540_581)),
            TargetOutcome(status: .failed, httpStatus: 410, reason: "Unregistered", tokenInvalid: true, attempts: 1,
                          finishedAt: Date(timeIntervalSince1970: 1_796_540_582.1234567)),
            TargetOutcome(status: .failed, httpStatus: 400, reason: "BadDeviceToken", providerID: "", attempts: 2,
                          finishedAt: Date(timeIntervalSince1970: 0.25)),
        ]
        let report = try await queue.complete(zip(claims, outcomes).map { TargetCompletion($0, $1) })
        XCTAssertEqual(report.recorded, 4)
        let status = try await queue.status(of: "p_1", includeTargets: true)
        XCTAssertEqual(status?.targets.map(\.outcome), outcomes, "the push's status")
        let log = try await queue.deliveries(app: "demo", token: nil, since: nil, limit: 10).sorted { $0.index < $1.index }
        XCTAssertEqual(log.map(\.outcome), outcomes, "the delivery log")
        XCTAssertEqual(log.map(\.target.value), claims.map(\.target.value))
        await queue.close()
    }
}

import Foundation
@testable import PushRelay
import XCTest

/// `HeldTargets`' guarantees as sequences of stage changes, one thread, instants passed in (the
/// relay process tests run the same steps with real sends).
final class HeldTargetsTests: XCTestCase {
    private func claims(_ count: Int, receipt: (Int) -> String = { "r\($0)" }) -> [ClaimedTarget] {
        (0..<count).map {
            ClaimedTarget(pushID: "p_1", index: $0, app: "shop", target: PushTarget(kind: .apnsToken, value: String(format: "%064x", $0)),
                          content: [], attempts: 0, receipt: receipt($0))
        }
    }

    private func answer(_ claim: ClaimedTarget) -> SendAnswer {
        SendAnswer(claim: claim, attempt: .sent(status: 200, providerID: "id", attempts: 1), start: .now)
    }

    private func batch(_ next: HeldTargets.NextBatch) -> [SendAnswer]? {
        if case .write(let answers) = next { return answers }
        return nil
    }

    func testAtMostConcurrencySendsStartAndClaimedTargetsStartInClaimOrder() {
        let held = HeldTargets(concurrency: 4)
        let claimed = claims(10)
        held.claimed(Array(claimed[0..<6]))
        held.claimed(Array(claimed[6...]))
        XCTAssertEqual(held.handOut().starting.map(\.index), [0, 1, 2, 3])
        XCTAssertEqual(held.inFlight, 4)
        XCTAssertEqual(held.handOut().starting.count, 0, "every slot sends")
        XCTAssertEqual(held.answered(answer(claimed[0]), now: .now).next?.index, 4, "the worker takes the next in claim order")
    }

    func testSendsPlusAnswersNotYetRecordedStayUnderTwiceConcurrencyUntilABatchIsRecorded() {
        let held = HeldTargets(concurrency: 2)
        let claimed = claims(10)
        held.claimed(claimed)
        XCTAssertEqual(held.handOut().starting.map(\.index), [0, 1])
        XCTAssertEqual(held.answered(answer(claimed[0]), now: .now).next?.index, 2)
        XCTAssertEqual(held.answered(answer(claimed[1]), now: .now).next?.index, 3)
        XCTAssertNil(held.answered(answer(claimed[2]), now: .now).next, "one send and three answers: the bound is 2 × 2")
        XCTAssertEqual(held.unrecorded, 4)
        let written = batch(held.nextBatch(now: .now))
        XCTAssertEqual(written?.map(\.claim.index), [0, 1, 2])
        XCTAssertEqual(held.unrecorded, 4, "a batch being written still counts")
        XCTAssertFalse(held.recorded(written ?? []))
        XCTAssertEqual(held.answered(answer(claimed[3]), now: .now).next?.index, 4, "room again once the batch is recorded")
    }

    func testAClaimStaysHeldUntilEveryTargetOfItIsRecorded() {
        let held = HeldTargets(concurrency: 4)
        let chunk = claims(3) { _ in "chunk" }
        held.claimed(chunk)
        _ = held.handOut()
        for claim in chunk { _ = held.answered(answer(claim), now: .now) }
        XCTAssertEqual(held.heldReceipts, ["chunk"], "answered, not recorded: its lease is still renewed")
        _ = held.recorded(chunk[0..<2].map(answer))
        XCTAssertEqual(held.heldReceipts, ["chunk"])
        _ = held.recorded([answer(chunk[2])])
        XCTAssertEqual(held.heldReceipts, [])
    }

    func testAnswersGatherUntilABatchOrTheGatherWaitWhileSendsAreInFlight() {
        let held = HeldTargets(concurrency: 4)
        XCTAssertEqual(held.recordBatch, 2)
        let claimed = claims(8)
        held.claimed(claimed)
        _ = held.handOut()
        let t0 = ContinuousClock.now
        XCTAssertFalse(held.answered(answer(claimed[0]), now: t0).wakeRecorder)
        guard case .wait = held.nextBatch(now: t0) else { return XCTFail("one answer, seven sends in flight: it waits") }
        XCTAssertTrue(held.answered(answer(claimed[1]), now: t0).wakeRecorder, "a batch's worth wakes the waiting recorder")
        XCTAssertEqual(batch(held.nextBatch(now: t0))?.count, 2)
        _ = held.answered(answer(claimed[2]), now: t0)
        guard case .wait = held.nextBatch(now: t0) else { return XCTFail("one answer again: it waits") }
        XCTAssertFalse(held.recorderDue(now: t0 + .milliseconds(1)))
        XCTAssertTrue(held.recorderDue(now: t0 + held.gatherWait), "the tick wakes it once the first answer waited gatherWait")
        XCTAssertFalse(held.recorderDue(now: t0 + held.gatherWait), "once")
    }

    func testStopStartsNoSendDrainsTheAnswersAndLeavesTheClaimedAheadToGiveBack() {
        let held = HeldTargets(concurrency: 2)
        let claimed = claims(5)
        held.claimed([claimed[0]])
        XCTAssertEqual(held.handOut().starting.map(\.index), [0])
        held.claimed(Array(claimed[1...]))
        XCTAssertTrue(held.stop().isEmpty, "no worker was parked")
        XCTAssertTrue(held.handOut().starting.isEmpty, "a slot is free, but no send starts once stopping")
        let after = held.answered(answer(claimed[0]), now: .now)
        XCTAssertTrue(after.stop)
        XCTAssertNil(after.next)
        XCTAssertEqual(batch(held.nextBatch(now: .now))?.map(\.claim.index), [0], "stopping: written at once")
        XCTAssertTrue(held.recorded([answer(claimed[0])]))
        guard case .done = held.nextBatch(now: .now) else { return XCTFail("nothing in flight, nothing to write: the recorder ends") }
        XCTAssertEqual(held.unrecorded, 0)
        XCTAssertEqual(Set(held.takeUnsent().map(\.index)), [1, 2, 3, 4])
        XCTAssertEqual(held.heldReceipts, [])
    }

    /// A receipt's stream as a cluster queue writes it (`LANE@…`).
    private static let streamOf: @Sendable (String) -> Int = { receipt in Int(receipt.split(separator: "@").first ?? "") ?? 0 }

    /// Three streams, answers coming in turn from each (the worst case for per-stream calls),
    /// every instant the same (no gather wait runs out): a batch holds one stream's answers
    /// only, a stream is written once it holds `recordBatch` or once the send bound holds sends
    /// back (the fullest then), and sends plus answers not yet recorded never pass `2 ×
    /// concurrency`. One shared buffer (before issue 37's fix) wrote every `recordBatch`
    /// answers in three calls of a third each.
    func testAnswersOfSeveralStreamsAreWrittenAsWholeStreamBatchesWithinTheSendBound() {
        let concurrency = 8
        let held = HeldTargets(concurrency: concurrency, streamOf: Self.streamOf)
        XCTAssertEqual(held.recordBatch, 4)
        let claimed = claims(96) { "\($0 % 3)@e\($0 / 24)" }
        held.claimed(claimed)
        var sending = held.handOut().starting
        XCTAssertEqual(sending.count, concurrency)
        let t0 = ContinuousClock.now
        var written: [[SendAnswer]] = [], recordedCount = 0, steps = 0
        while !sending.isEmpty || recordedCount < claimed.count {
            steps += 1
            guard steps < 10_000 else { return XCTFail("no progress: \(held.snapshot)") }
            if !sending.isEmpty {
                let after = held.answered(answer(sending.removeFirst()), now: t0)
                if let next = after.next { sending.append(next) }
            }
            XCTAssertLessThanOrEqual(held.unrecorded, 2 * concurrency, "the send bound")
            while let batch = batch(held.nextBatch(now: t0)) {
                written.append(batch)
                recordedCount += batch.count
                _ = held.recorded(batch)
                sending += held.handOut().starting
                // Workers the bound stopped start again once room is made (parked workers in
                // the pool).
                while sending.count < concurrency, let next = held.startIfRoom() { sending.append(next) }
            }
        }
        XCTAssertEqual(recordedCount, claimed.count)
        for batch in written {
            XCTAssertEqual(Set(batch.map { Self.streamOf($0.claim.receipt) }).count, 1, "one stream per batch: \(batch.map(\.claim.receipt))")
        }
        // The queue makes one `complete` call per stream in a batch.
        let calls = written.map { Set($0.map { Self.streamOf($0.claim.receipt) }).count }.reduce(0, +)
        XCTAssertLessThanOrEqual(calls, 2 * claimed.count / held.recordBatch,
                                 "about one write per recordBatch answers (one shared buffer: 3 per recordBatch): \(written.map(\.count))")
    }

    /// A stream whose answers have waited `staleWait` is written with the next batch even while
    /// another stream is fuller; with one stream the rule is the old one (a batch's worth, or
    /// the gather wait).
    func testAStreamsAnswersDoNotWaitBehindBusierStreamsPastStaleWait() {
        let held = HeldTargets(concurrency: 8, streamOf: Self.streamOf)
        let claimed = claims(12) { $0 == 0 ? "1@quiet" : "0@busy" }
        held.claimed(claimed)
        _ = held.handOut()
        let t0 = ContinuousClock.now
        _ = held.answered(answer(claimed[0]), now: t0)
        _ = held.answered(answer(claimed[1]), now: t0 + .milliseconds(1))
        _ = held.answered(answer(claimed[2]), now: t0 + .milliseconds(1))
        let first = batch(held.nextBatch(now: t0 + held.gatherWait + .milliseconds(1)))
        XCTAssertEqual(first?.map(\.claim.index), [1, 2], "both due by the gather wait: the fullest is written, the other keeps gathering")
        _ = held.recorded(first ?? [])
        for k in 3..<7 { _ = held.answered(answer(claimed[k]), now: t0 + .milliseconds(5)) }
        let second = batch(held.nextBatch(now: t0 + held.staleWait))
        XCTAssertEqual(second.map { Set($0.map(\.claim.index)) }, [0, 3, 4, 5, 6], "the full stream and the stale one")
    }
}

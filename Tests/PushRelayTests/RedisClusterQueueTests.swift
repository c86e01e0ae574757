import Foundation
import PushCore
import PushRedis
import PushRelay
import TestSupport
import XCTest

/// `RedisPushQueue` on a real 3-master Redis Cluster on loopback (`RedisClusterServers`, AOF
/// with `appendfsync always`, as the single-Redis tests): the `PushQueueContract` checks, one
/// stream per master, a master killed with SIGKILL and restarted, and a slot migration under
/// the queue (real `-ASK` and `-MOVED` answers).
final class RedisClusterQueueTests: XCTestCase {
    /// One cluster for the contract checks (each check its own key prefix, so they share no key).
    nonisolated(unsafe) private static var shared: RedisClusterServers?

    override class func tearDown() {
        shared?.stop()
        shared = nil
    }

    private func sharedCluster() throws -> RedisClusterServers {
        if let shared = Self.shared { return shared }
        let servers = try RedisClusterServers()
        Self.shared = servers
        return servers
    }

    private func factory() throws -> PushQueueContract.Factory {
        let url = try sharedCluster().url
        return { time, capacity in
            let prefix = "c\(UInt32.random(in: 0...UInt32.max))"
            let queue = RedisPushQueue(cluster: try RedisClusterEndpoint(url: url),
                                       configuration: .init(prefix: prefix, capacity: capacity, idleBlock: .zero), time: time)
            try await queue.prepare()
            return queue
        }
    }

    func testClaimsEveryTargetOnce() async throws { try await PushQueueContract.claimsEveryTargetOnce(try factory()) }
    func testIdempotencyKeyReplaysAndConflicts() async throws { try await PushQueueContract.idempotencyKeyReplaysAndConflicts(try factory()) }
    func testFullQueueRefusesWholeSubmission() async throws { try await PushQueueContract.fullQueueRefusesWholeSubmission(try factory()) }
    func testExpiredLeaseIsClaimedAgain() async throws { try await PushQueueContract.expiredLeaseIsClaimedAgain(try factory()) }
    func testRenewedLeaseOutlastsItsFirstEnd() async throws { try await PushQueueContract.renewedLeaseOutlastsItsFirstEnd(try factory()) }
    func testSecondFinalResultIsADuplicate() async throws { try await PushQueueContract.secondFinalResultIsADuplicate(try factory()) }
    func testBatchReportNamesItsDuplicates() async throws { try await PushQueueContract.batchReportNamesItsDuplicates(try factory()) }
    func testRescheduledTargetWaitsForItsTime() async throws { try await PushQueueContract.rescheduledTargetWaitsForItsTime(try factory()) }
    func testDeliveriesAndInvalidTokens() async throws { try await PushQueueContract.deliveriesAndInvalidTokens(try factory()) }

    private func queue(_ servers: RedisClusterServers, node: String, prefix: String = "pushlab",
                       idleBlock: Duration = .zero) throws -> RedisPushQueue {
        RedisPushQueue(cluster: try RedisClusterEndpoint(url: servers.url),
                       configuration: .init(prefix: prefix, capacity: 100_000, idleBlock: idleBlock), clientName: node)
    }

    /// Claims and completes everything there is (with `queues` taking turns); returns how often
    /// each (push, target) was claimed.
    private func drain(_ queues: [RedisPushQueue]) async throws -> [String: Int] {
        var claims: [String: Int] = [:]
        var idle = 0
        while idle < queues.count {
            idle = 0
            for (k, q) in queues.enumerated() {
                let got = try await q.claim(consumer: "w\(k)", limit: 100, lease: .seconds(60))
                if got.isEmpty { idle += 1; continue }
                for c in got { claims["\(c.pushID)/\(c.index)", default: 0] += 1 }
                let report = try await q.complete(got.map { PushQueueContract.sent($0, at: Date()) })
                XCTAssertEqual(report.duplicates, 0)
            }
        }
        return claims
    }

    func testOneStreamPerMasterPushesSpreadOverThemAndTwoNodesClaimEachTargetOnce() async throws {
        let servers = try sharedCluster()
        let prefix = "spread\(UInt32.random(in: 0...UInt32.max))"
        let a = try queue(servers, node: "a", prefix: prefix), b = try queue(servers, node: "b", prefix: prefix)
        try await a.prepare()
        try await b.prepare()
        XCTAssertEqual(a.lanes, b.lanes, "both nodes use the lanes stored by the first")
        XCTAssertEqual(a.lanes.count, 3)
        let masters = try Set(a.lanes.map { try servers.master(ofSlot: RedisHashSlot.slot(of: $0.stream)).port })
        XCTAssertEqual(masters.count, 3, "one stream per master")
        for lane in a.lanes {
            XCTAssertEqual(RedisHashSlot.slot(of: lane.stream), RedisHashSlot.slot(of: lane.prefix + ":push:x"), "a lane's keys share a slot")
        }
        for k in 0..<30 { _ = try await (k % 2 == 0 ? a : b).enqueue(PushQueueContract.submission(PushID("p_\(k)"), tokens: 70, at: Date())) }
        let perLane = try a.lanes.map { Int(try servers.cli(["XLEN", $0.stream])) ?? 0 }
        XCTAssertTrue(perLane.allSatisfy { $0 > 0 }, "every stream got pushes: \(perLane)")
        let claims = try await drain([a, b])
        XCTAssertEqual(claims.count, 30 * 70)
        XCTAssertEqual(claims.values.filter { $0 != 1 }.count, 0, "each target claimed once")
        let depth = try await a.depth()
        XCTAssertEqual(depth, QueueDepth(waiting: 0, claimed: 0, finished: 30 * 70))
        let status = try await b.status(of: "p_7", includeTargets: false)
        XCTAssertEqual(status?.sent, 70, "any node finds a push on any lane")
        let cluster = try await a.clusterStatus(deadLetterSample: 0)
        XCTAssertEqual(cluster.shards?.count, 3)
        XCTAssertEqual(Set(cluster.lanes.compactMap(\.master)).count, 3)
        await a.close()
        await b.close()
    }

    /// Each lane's part of a push: the `count` of `{lane}:push:ID` (0 where it has none).
    private func partCounts(_ servers: RedisClusterServers, _ q: RedisPushQueue, _ push: PushID) throws -> [Int] {
        try q.lanes.map { Int(try servers.cli(["HGET", "\($0.prefix):push:\(push)", "count"])) ?? 0 }
    }

    /// A push of many chunks is cut into one part per master of near-equal size (so each master
    /// gets about a third of the targets, whatever the push sizes), a push of one chunk stays
    /// whole; any node reads a spread push whole, two nodes drain it each target once, and its
    /// end is reported once (by the node that recorded its last part), however its parts end.
    func testAPushOfManyChunksIsSpreadOverEveryMasterInNearEqualPartsAndReportedFinishedOnce() async throws {
        let servers = try sharedCluster()
        let prefix = "parts\(UInt32.random(in: 0...UInt32.max))"
        let a = try queue(servers, node: "a", prefix: prefix), b = try queue(servers, node: "b", prefix: prefix)
        try await a.prepare()
        try await b.prepare()
        let sizes: [PushID: Int] = ["s_1000": 1_000, "s_700": 700, "s_130": 130, "s_40": 40]
        for (id, n) in sizes.sorted(by: { $0.key < $1.key }) {
            _ = try await a.enqueue(PushQueueContract.submission(id, tokens: n, at: Date()))
        }
        for (id, n) in sizes {
            let parts = try partCounts(servers, a, id)
            XCTAssertEqual(parts.reduce(0, +), n, "\(id): \(parts)")
            if n <= 64 {
                XCTAssertEqual(parts.filter { $0 > 0 }.count, 1, "a push of one chunk stays in one lane: \(parts)")
            } else {
                XCTAssertTrue(parts.allSatisfy { abs($0 - n / 3) <= 64 }, "\(id) cut in near-equal thirds of whole chunks: \(parts)")
                XCTAssertEqual(parts.filter { $0 % 64 != 0 }.count, n % 64 == 0 ? 0 : 1, "\(id): only the push's last chunk partly filled: \(parts)")
            }
        }
        // One stream entry per chunk of 64 of each push (cut inside chunks, 1,000 targets made 18
        // entries instead of 16, and these four pushes 34 instead of 31).
        let entries = try a.lanes.map { Int(try servers.cli(["XLEN", $0.stream])) ?? -1 }
        XCTAssertEqual(entries.reduce(0, +), sizes.values.map { ($0 + 63) / 64 }.reduce(0, +), "entries per lane: \(entries)")
        let head = try await b.status(of: "s_1000", includeTargets: true)
        XCTAssertEqual(head?.targetCount, 1_000)
        XCTAssertEqual(head?.targets.map(\.index), Array(0..<1_000), "every part's targets, in order")
        XCTAssertEqual(head?.targets.first { $0.index == 999 }?.target.value, String(format: "%064x", 999))
        // Drained by both nodes in turns; count each push's end report.
        var claims: [String: Int] = [:], finished: [PushID: Int] = [:]
        var idle = 0
        while idle < 2 {
            idle = 0
            for (k, q) in [a, b].enumerated() {
                let got = try await q.claim(consumer: "w\(k)", limit: 100, lease: .seconds(60))
                if got.isEmpty { idle += 1; continue }
                for c in got { claims["\(c.pushID)/\(c.index)", default: 0] += 1 }
                let report = try await q.complete(got.map { PushQueueContract.sent($0, at: Date()) })
                XCTAssertEqual(report.duplicates, 0)
                for push in report.finishedPushes { finished[push, default: 0] += 1 }
            }
        }
        XCTAssertEqual(claims.count, sizes.values.reduce(0, +))
        XCTAssertEqual(claims.values.filter { $0 != 1 }.count, 0, "each target claimed once")
        XCTAssertEqual(finished, sizes.mapValues { _ in 1 }, "each push reported finished once, when whole")
        let done = try await a.status(of: "s_700", includeTargets: false)
        XCTAssertEqual(done?.sent, 700)
        XCTAssertEqual(done?.isFinished, true)
        await a.close()
        await b.close()
    }

    /// A spread push's last two parts finished at the same moment by two nodes (`complete` on
    /// each at once): each node counts the part it finished from its own script's answer and
    /// reads only the other lanes, so the push is reported finished exactly once — by one of
    /// them, never by neither (each counts its own part) nor by both (the announce is `SET NX`);
    /// its first part alone does not finish it (the unfinished lanes are read). 8 pushes, for
    /// 8 draws of which node's reads come first.
    func testTwoNodesFinishingTheLastTwoPartsOfAPushAtOnceReportItFinishedOnce() async throws {
        let servers = try sharedCluster()
        let prefix = "last\(UInt32.random(in: 0...UInt32.max))"
        let a = try queue(servers, node: "a", prefix: prefix), b = try queue(servers, node: "b", prefix: prefix)
        try await a.prepare()
        try await b.prepare()
        let ids = (0..<8).map { PushID("l_\($0)") }
        for id in ids { _ = try await a.enqueue(PushQueueContract.submission(id, tokens: 300, at: Date())) }
        var claims: [ClaimedTarget] = []
        for _ in 0..<100 {
            let got = try await a.claim(consumer: "w", limit: 1_000, lease: .seconds(60))
            if got.isEmpty { break }
            claims += got
        }
        XCTAssertEqual(claims.count, ids.count * 300)
        let laneOf = { (c: ClaimedTarget) in Int(c.receipt.prefix { $0 != "@" }) ?? -1 }
        for id in ids {
            let mine = claims.filter { $0.pushID == id }
            let lanes = Set(mine.map(laneOf)).sorted()
            XCTAssertEqual(lanes.count, 3, "\(id): 300 targets (5 chunks) in a part per master")
            guard lanes.count == 3 else { continue }
            let part = { (lane: Int) in mine.filter { laneOf($0) == lane }.map { PushQueueContract.sent($0, at: Date()) } }
            let first = try await a.complete(part(lanes[0]))
            XCTAssertEqual(first.finishedPushes, [], "\(id): one part of three finished, two not")
            let second = part(lanes[1]), third = part(lanes[2])
            async let onA = a.complete(second)
            async let onB = b.complete(third)
            let (ra, rb) = try await (onA, onB)
            XCTAssertEqual(first.recorded + ra.recorded + rb.recorded, 300)
            XCTAssertEqual([ra, rb].filter { $0.finishedPushes.contains(id) }.count, 1,
                           "\(id) reported finished once: node a \(ra.finishedPushes), node b \(rb.finishedPushes)")
            let status = try await b.status(of: id, includeTargets: false)
            XCTAssertEqual(status?.isFinished, true)
        }
        await a.close()
        await b.close()
    }

    /// Parts are whole chunks, the biggest to the least loaded lane: 1,000 targets (15 chunks
    /// of 64 and one of 40) in 5, 5 and 6 chunks; the 360 to the lane with the fewest
    /// unfinished targets, whichever lane that is; in target order, consecutive, covering all.
    func testTheBiggestPartOfWholeChunksGoesToTheLeastLoadedLane() async throws {
        let servers = try sharedCluster()
        let q = try queue(servers, node: "a", prefix: "load\(UInt32.random(in: 0...UInt32.max))")
        try await q.prepare()
        for least in 0..<3 {
            var unfinished: [Int?] = [700, 700, 700]
            unfinished[least] = 100
            unfinished[(least + 1) % 3] = 400
            let plan = q.parts(of: PushQueueContract.submission(PushID("p_\(least)"), tokens: 1_000, at: Date()), lanes: q.lanes, unfinished: unfinished)
            XCTAssertEqual(plan.map(\.targets), [0..<320, 320..<640, 640..<1_000])
            XCTAssertEqual(plan.first { $0.targets.count == 360 }?.lane.index, least, "the biggest part to the least loaded lane")
            XCTAssertEqual(Set(plan.map(\.lane.index)), [0, 1, 2])
            XCTAssertEqual(plan.first { $0.lane.index == (least + 2) % 3 }?.targets.count, 320)
        }
        await q.close()
    }

    /// A target of a spread push's part (1,000 targets in parts of 5, 5 and 6 chunks: the second
    /// part starts at 320, the third at 640; before parts were whole chunks, at 333 and 666) or
    /// inside one of its chunks keeps its own definition when it is put back and claimed again:
    /// the claim then reads the definitions from the part's stored chunks, which start at the
    /// part's first target (before the merge of the two queue layouts this fell back to the
    /// wrong chunk).
    func testARetriedTargetOfASpreadPushIsClaimedAgainWithItsOwnToken() async throws {
        let servers = try sharedCluster()
        let prefix = "retry\(UInt32.random(in: 0...UInt32.max))"
        let q = try queue(servers, node: "a", prefix: prefix)
        try await q.prepare()
        _ = try await q.enqueue(PushQueueContract.submission("r_1000", tokens: 1_000, at: Date()))
        var claimed: [ClaimedTarget] = []
        while true {
            let got = try await q.claim(consumer: "w", limit: 512, lease: .seconds(60))
            if got.isEmpty { break }
            claimed += got
        }
        XCTAssertEqual(claimed.count, 1_000)
        let indices = [319, 320, 333, 400, 639, 640, 665, 666, 999]
        let putBack = claimed.filter { indices.contains($0.index) }
        XCTAssertEqual(putBack.count, indices.count)
        try await q.reschedule(putBack.map { TargetRetry($0, attempts: 1, lastError: "test", notBefore: Date()) })
        var again: [ClaimedTarget] = []
        for _ in 0..<20 where again.count < indices.count {
            again += try await q.claim(consumer: "w", limit: 512, lease: .seconds(60))
        }
        XCTAssertEqual(again.map(\.index).sorted(), indices)
        for c in again {
            XCTAssertEqual(c.target.value, String(format: "%064x", c.index), "target \(c.index) claimed again with its own token")
        }
        await q.close()
    }

    /// A spread push with an idempotency key whose second part cannot be written (its master is
    /// down) is refused; its retry with the same key answers the first push's id and writes the
    /// missing part once; a replay after that writes nothing.
    func testASpreadPushRetriedAfterAPartFailedIsQueuedOnceWithTheFirstPushsID() async throws {
        let servers = try RedisClusterServers()
        defer { servers.stop() }
        let q = try queue(servers, node: "a")
        try await q.prepare()
        let first = PushQueueContract.submission("i_1", tokens: 300, key: "k", fingerprint: "f", at: Date())
        let plan = q.parts(of: first, lanes: q.lanes, unfinished: q.lanes.map { _ in 0 })
        XCTAssertEqual(plan.count, 3)
        let victim = try servers.master(ofSlot: RedisHashSlot.slot(of: plan[1].lane.stream))
        victim.crash()
        do {
            _ = try await q.enqueue(first)
            XCTFail("a part on a dead master cannot be written")
        } catch {}
        try victim.restart()
        try servers.waitUntilOK()
        let retry = PushQueueContract.submission("i_2", tokens: 300, key: "k", fingerprint: "f", at: Date())
        var receipt: EnqueueReceipt?
        let ok = try await Poll.until(timeout: 20) {
            receipt = try? await q.enqueue(retry)
            return receipt != nil
        }
        XCTAssertTrue(ok, "the retry is queued once the master is back")
        XCTAssertEqual(receipt?.pushID, "i_1")
        XCTAssertEqual(receipt?.isReplay, true)
        XCTAssertEqual(receipt?.targetCount, 300)
        let again = try await q.enqueue(PushQueueContract.submission("i_3", tokens: 300, key: "k", fingerprint: "f", at: Date()))
        XCTAssertEqual(again.pushID, "i_1")
        XCTAssertEqual(try partCounts(servers, q, "i_1"), q.lanes.map { lane in plan.first { $0.lane == lane }?.targets.count ?? 0 })
        XCTAssertEqual(try partCounts(servers, q, "i_2"), [0, 0, 0], "nothing under the retry's own id")
        let claims = try await drain([q])
        XCTAssertEqual(claims.count, 300)
        XCTAssertEqual(claims.values.filter { $0 != 1 }.count, 0)
        let status = try await q.status(of: "i_1", includeTargets: false)
        XCTAssertEqual(status?.sent, 300)
        await q.close()
    }

    /// A master killed with SIGKILL (no shutdown, AOF fsynced per write) and started again on
    /// its port and directory: every push acknowledged before the kill is there, whole; while
    /// it is down the other masters' streams are still claimed.
    func testAMasterKilledAndRestartedLosesNothingAcknowledgedAndTheOtherStreamsWorkMeanwhile() async throws {
        let servers = try RedisClusterServers()
        defer { servers.stop() }
        let q = try queue(servers, node: "a")
        try await q.prepare()
        var ids: [PushID] = []
        for k in 0..<24 {
            _ = try await q.enqueue(PushQueueContract.submission(PushID("k_\(k)"), tokens: 50, at: Date()))
            ids.append(PushID("k_\(k)"))
        }
        let victim = try servers.master(ofSlot: RedisHashSlot.slot(of: q.lanes[0].stream))
        victim.crash()
        // Claims go on from the other two streams while the victim is down.
        let during = try await q.claim(consumer: "a", limit: 64, lease: .seconds(60))
        XCTAssertFalse(during.isEmpty, "the other masters' streams are claimed while one master is down")
        try await q.complete(during.map { PushQueueContract.sent($0, at: Date()) })
        try victim.restart()
        try servers.waitUntilOK()
        let claims = try await drain([q])
        XCTAssertEqual(claims.count + during.count, 24 * 50, "every acknowledged target is there after the restart")
        XCTAssertEqual(claims.values.filter { $0 != 1 }.count, 0)
        for id in ids {
            let status = try await q.status(of: id, includeTargets: false)
            XCTAssertEqual(status?.sent, 50, id.rawValue)
        }
        await q.close()
    }

    /// A batch of results over two lanes whose second lane's master dies after the first lane
    /// was recorded: `complete` throws, and its retry (the same batch, as DeliveryWorkers
    /// retries) records the second lane and reports the first lane's results as recorded — not
    /// as duplicates, which would drop their events and `push_finished`.
    func testAResultsBatchRetriedAfterOneMasterFailedReportsEveryResultOnceAndEveryFinishedPush() async throws {
        let servers = try RedisClusterServers()
        defer { servers.stop() }
        let q = try queue(servers, node: "a")
        try await q.prepare()
        for k in 0..<12 { _ = try await q.enqueue(PushQueueContract.submission(PushID("r_\(k)"), tokens: 10, at: Date())) }
        let claims = try await q.claim(consumer: "a", limit: 1_000, lease: .seconds(60))
        XCTAssertEqual(claims.count, 120)
        let laneOf = { (c: ClaimedTarget) in Int(c.receipt.prefix { $0 != "@" }) ?? -1 }
        let used = Set(claims.map(laneOf)).sorted()
        XCTAssertGreaterThanOrEqual(used.count, 2, "12 pushes over 3 lanes")
        let victim = try servers.master(ofSlot: RedisHashSlot.slot(of: q.lanes[used.last!].stream))
        victim.crash()
        let batch = claims.map { PushQueueContract.sent($0, at: Date()) }
        do {
            _ = try await q.complete(batch)
            XCTFail("the lane on the dead master cannot be recorded")
        } catch {}
        try victim.restart()
        try servers.waitUntilOK()
        var report = CompletionReport()
        let ok = try await Poll.until(timeout: 20) {
            guard let got = try? await q.complete(batch) else { return false }
            report = got
            return true
        }
        XCTAssertTrue(ok, "the retry records once the master is back")
        XCTAssertEqual(report.recorded, 120, "\(report.duplicates) reported as duplicates")
        XCTAssertEqual(report.duplicates, 0)
        XCTAssertEqual(report.finishedPushes, Set((0..<12).map { PushID("r_\($0)") }))
        await q.close()
    }

    /// The slot of a stream moves to another master while the queue holds a push there: reads
    /// during the migration meet `-ASK`, the scripts after it `-MOVED`; the push finishes, each
    /// target once.
    func testASlotMigrationUnderTheQueueIsFollowedByAskAndMoved() async throws {
        let servers = try RedisClusterServers()
        defer { servers.stop() }
        let q = try queue(servers, node: "a")
        try await q.prepare()
        _ = try await q.enqueue(PushQueueContract.submission("m_1", tokens: 200, at: Date()))
        let lane = try XCTUnwrap(q.lanes.first { (try? servers.cli(["EXISTS", $0.prefix + ":push:m_1"])) == "1" })
        let slot = RedisHashSlot.slot(of: lane.stream)
        let target = try XCTUnwrap(try servers.nodes.first { try $0.port != servers.master(ofSlot: slot).port })
        let move = try servers.startMoving(slot, to: target, keysFirst: 2)
        let midway = try await q.status(of: "m_1", includeTargets: true)
        XCTAssertEqual(midway?.targets.count, 200, "the push is readable during the migration")
        try servers.finish(move)
        let claims = try await drain([q])
        XCTAssertEqual(claims.count, 200)
        XCTAssertEqual(claims.values.filter { $0 != 1 }.count, 0)
        let done = try await q.status(of: "m_1", includeTargets: false)
        XCTAssertEqual(done?.sent, 200)
        let part = try target.cli(["HGET", lane.prefix + ":push:m_1", "count"])
        XCTAssertEqual(try target.cli(["HGET", lane.prefix + ":push:m_1", "sent"]), part, "written on the new master")
        let counters = try XCTUnwrap(q.sharedClient.clusterCounters)
        XCTAssertGreaterThanOrEqual(counters.ask, 1, "\(counters)")
        XCTAssertGreaterThanOrEqual(counters.moved, 1, "\(counters)")
        await q.close()
    }
}

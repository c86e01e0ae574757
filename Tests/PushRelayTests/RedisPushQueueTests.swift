import Foundation
import PushCore
import PushRedis
import PushRelay
import TestSupport
import XCTest

/// The same `PushQueueContract` checks as `SQLitePushQueueTests`, against `RedisPushQueue` on a
/// real redis-server (its own port and temp directory), plus what only several nodes show.
final class RedisPushQueueTests: XCTestCase {
    private var server: RedisServer!

    override func setUpWithError() throws {
        server = try RedisServer()
    }

    override func tearDown() {
        server?.stop()
        server = nil
    }

    private func queue(time: any TimeSource = SystemTimeSource(), capacity: Int = 1_000, maxDeliveries: Int = 5,
                       idleBlock: Duration = .zero, retention: Duration? = nil, node: String = "n1") throws -> RedisPushQueue {
        var configuration = RedisPushQueue.Configuration(capacity: capacity, maxDeliveries: maxDeliveries, idleBlock: idleBlock)
        if let retention { configuration.retention = retention }
        return RedisPushQueue(endpoint: try RedisEndpoint(url: server.url), configuration: configuration, time: time, clientName: node)
    }

    private var factory: PushQueueContract.Factory {
        let url = server.url
        return { time, capacity in
            let queue = RedisPushQueue(endpoint: try RedisEndpoint(url: url), configuration: .init(capacity: capacity, idleBlock: .zero), time: time)
            try await queue.prepare()
            return queue
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

    /// Two nodes (two queues, one Redis) share the work: every target is handed to exactly one
    /// of them, and either node answers for the push.
    func testTwoNodesShareOnePushWithoutOverlap() async throws {
        let a = try queue(node: "a"), b = try queue(node: "b")
        try await a.prepare()
        _ = try await a.enqueue(PushQueueContract.submission("p_1", tokens: 50, at: Date()))
        var seen: [Int] = []
        while true {
            let fromA = try await a.claim(consumer: "a", limit: 7, lease: .seconds(30))
            let fromB = try await b.claim(consumer: "b", limit: 7, lease: .seconds(30))
            if fromA.isEmpty && fromB.isEmpty { break }
            try await a.complete(fromA.map { PushQueueContract.sent($0, at: Date()) })
            try await b.complete(fromB.map { PushQueueContract.sent($0, at: Date()) })
            seen += (fromA + fromB).map(\.index)
        }
        XCTAssertEqual(seen.sorted(), Array(0..<50))
        let status = try await b.status(of: "p_1", includeTargets: false)
        XCTAssertEqual(status?.sent, 50)
        let depth = try await a.depth()
        XCTAssertEqual(depth, QueueDepth(waiting: 0, claimed: 0, finished: 50))
        XCTAssertEqual(try server.cli(["XLEN", "pushlab:work"]), "0", "acknowledged entries are deleted: the stream holds only unfinished work")
        await a.close()
        await b.close()
    }

    /// The done marker: an entry taken over after its target was answered is not handed out
    /// again; an entry taken over past max deliveries goes to the dead-letter stream with a
    /// final failure, visible in the cluster status.
    func testTakeOverSkipsAnsweredTargetsAndDeadLettersPoisonedOnes() async throws {
        let time = ManualTimeSource()
        let q = try queue(time: time, maxDeliveries: 2)
        try await q.prepare()
        _ = try await q.enqueue(PushQueueContract.submission("p_1", tokens: 2, at: time.now))
        let first = try await q.claim(consumer: "dies", limit: 2, lease: .seconds(5))
        XCTAssertEqual(first.count, 2)
        XCTAssertEqual(Set(first.map(\.receipt)).count, 1, "both targets came in one chunk")
        // Target 0 was answered; the node dies holding its chunk (target 1 unanswered).
        try await q.complete([PushQueueContract.sent(first[0], at: time.now)])
        time.advance(by: 6)
        let second = try await q.claim(consumer: "n2", limit: 10, lease: .seconds(5))
        XCTAssertEqual(second.map(\.index), [1], "the answered target is not handed out again")
        time.advance(by: 6)
        let third = try await q.claim(consumer: "n3", limit: 10, lease: .seconds(5))
        XCTAssertTrue(third.isEmpty, "the third delivery is past maxDeliveries 2")
        let status = try await q.status(of: "p_1", includeTargets: true)
        XCTAssertEqual(status?.isFinished, true)
        XCTAssertEqual(status?.targets.last?.outcome?.reason, "DeadLetter")
        let cluster = try await q.clusterStatus()
        XCTAssertEqual(cluster.deadLetterCount, 1)
        XCTAssertEqual(cluster.recentDeadLetters.first?.index, 1)
        XCTAssertEqual(cluster.depth.unfinished, 0)
        await q.close()
    }

    /// A node restarted under the same name gets back what it held, at once (no lease wait).
    func testRestartedNodeRecoversItsOwnPendingEntries() async throws {
        let time = ManualTimeSource()
        let before = try queue(time: time, node: "n1")
        try await before.prepare()
        _ = try await before.enqueue(PushQueueContract.submission("p_1", tokens: 3, at: time.now))
        let claims = try await before.claim(consumer: "n1", limit: 3, lease: .seconds(300))
        try await before.complete([PushQueueContract.sent(claims[0], at: time.now)])
        await before.close()
        let after = try queue(time: time, node: "n1")
        let released = try await after.recoverAbandoned()
        XCTAssertEqual(released, 2)
        let again = try await after.claim(consumer: "n1", limit: 10, lease: .seconds(300))
        XCTAssertEqual(again.map(\.index), [1, 2])
        await after.close()
    }

    /// An idle claim waits for new work and returns as soon as another node queues some.
    func testIdleClaimWakesOnNewWork() async throws {
        let idle = try queue(idleBlock: .seconds(10), node: "idle")
        let other = try queue(node: "other")
        try await idle.prepare()
        async let claimed = idle.claim(consumer: "idle", limit: 10, lease: .seconds(30))
        // Wait until the claim is blocked in Redis, then queue from the other node.
        let blocked = await Poll.until(timeout: 10, interval: .milliseconds(50)) { (try? self.server.cli(["CLIENT", "LIST"]).contains("cmd=xread")) ?? false }
        XCTAssertTrue(blocked)
        _ = try await other.enqueue(PushQueueContract.submission("p_1", tokens: 1, at: Date()))
        let result = try await claimed
        XCTAssertEqual(result.map(\.pushID), ["p_1"], "the blocked claim saw the new entry (an expired block returns nothing)")
        await idle.close()
        await other.close()
    }

    /// Redis down: operations fail with a storage error naming the endpoint; after a restart
    /// the same queue works again and what was queued before is still there (AOF).
    func testRedisRestartKeepsQueuedWork() async throws {
        let q = try queue()
        try await q.prepare()
        _ = try await q.enqueue(PushQueueContract.submission("p_1", tokens: 4, at: Date()))
        server.crash()
        do {
            _ = try await q.depth()
            XCTFail("Redis is down")
        } catch {
            guard case .storage(let detail) = error else { return XCTFail("\(error)") }
            XCTAssertTrue(detail.contains("127.0.0.1"), detail)
        }
        try server.restart()
        var depth: QueueDepth?
        let back = await Poll.until(timeout: 10, interval: .milliseconds(50)) { depth = try? await q.depth(); return depth != nil }
        XCTAssertTrue(back)
        XCTAssertEqual(depth?.waiting, 4)
        let claims = try await q.claim(consumer: "n1", limit: 10, lease: .seconds(30))
        XCTAssertEqual(claims.count, 4)
        await q.close()
    }

    /// Retention: a finished push's keys (status, targets, results — the done markers — and its
    /// idempotency key) expire, so Redis does not grow with every push; an unfinished push's keys
    /// never do, and a late result for an expired push does not bring its keys back.
    func testFinishedPushKeysExpireAfterTheRetention() async throws {
        let q = try queue(retention: .milliseconds(300))
        try await q.prepare()
        _ = try await q.enqueue(PushQueueContract.submission("p_1", tokens: 3, key: "k1", fingerprint: "f", at: Date()))
        let claims = try await q.claim(consumer: "n1", limit: 3, lease: .seconds(30))
        XCTAssertEqual(claims.count, 3)
        try await q.complete(claims.prefix(2).map { PushQueueContract.sent($0, at: Date()) })
        let keys = ["pushlab:push:p_1", "pushlab:targets:p_1", "pushlab:results:p_1", "pushlab:claimed:p_1", "pushlab:idem:demo:k1"]
        for key in keys.filter({ $0 != "pushlab:claimed:p_1" }) {
            XCTAssertEqual(try server.cli(["PTTL", key]), "-1", "\(key) of an unfinished push must not expire")
        }
        try await q.complete([PushQueueContract.sent(claims[2], at: Date())])
        let ttl = Int(try server.cli(["PTTL", "pushlab:results:p_1"])) ?? -9
        XCTAssertTrue((1...300).contains(ttl), "the finished push's done markers expire after the retention (PTTL \(ttl))")
        let deadline = ContinuousClock.now + .seconds(10)
        var left = ""
        repeat {
            left = try server.cli(["EXISTS"] + keys)
            if left == "0" { break }
            try await Task.sleep(for: .milliseconds(50))
        } while ContinuousClock.now < deadline
        XCTAssertEqual(left, "0", "every key of the finished push expired")
        let status = try await q.status(of: "p_1", includeTargets: true)
        XCTAssertNil(status)
        let late = try await q.complete([PushQueueContract.sent(claims[0], at: Date())])
        XCTAssertEqual(late.recorded, 0)
        XCTAssertEqual(try server.cli(["EXISTS"] + keys), "0", "a late result does not recreate an expired push")
        let delivered = try await q.deliveries(app: "demo", token: nil, since: nil, limit: 10)
        XCTAssertEqual(delivered.count, 3, "the delivery log keeps the results after the push's keys expired")
        await q.close()
    }

    /// Redis's work is per chunk, not per target: 640 targets in chunks of 64 are 10 stream
    /// entries, leased and acknowledged 10 times, and every command the scripts run (stream,
    /// hashes, sets, counters, the delivery log) come to at most two per target, where one
    /// stream entry, claim and result per target took a dozen and more.
    func testAPushIsQueuedClaimedAndAcknowledgedInChunks() async throws {
        let q = try queue(capacity: 10_000)
        try await q.prepare()
        _ = try server.cli(["CONFIG", "RESETSTAT"])
        _ = try await q.enqueue(PushQueueContract.submission("p_1", tokens: 640, at: Date()))
        XCTAssertEqual(try server.cli(["XLEN", "pushlab:work"]), "10")
        var handed = 0
        while true {
            let claims = try await q.claim(consumer: "n1", limit: 64, lease: .seconds(30))
            if claims.isEmpty { break }
            handed += claims.count
            for batch in stride(from: 0, to: claims.count, by: 16) {
                try await q.complete(claims[batch..<min(claims.count, batch + 16)].map { PushQueueContract.sent($0, at: Date()) })
            }
        }
        XCTAssertEqual(handed, 640)
        let status = try await q.status(of: "p_1", includeTargets: false)
        XCTAssertEqual(status?.sent, 640)
        XCTAssertEqual(try server.cli(["XLEN", "pushlab:work"]), "0", "every chunk acknowledged and deleted")
        let stats = try server.cli(["INFO", "commandstats"])
        func calls(_ command: String) -> Int {
            guard let line = stats.split(whereSeparator: \.isNewline).first(where: { $0.hasPrefix("cmdstat_\(command):") }),
                  let field = line.split(separator: ",").first(where: { $0.contains("calls=") }) else { return 0 }
            return Int(field.split(separator: "=").last ?? "") ?? 0
        }
        XCTAssertEqual(calls("xack"), 10, "one acknowledgement per chunk:\n\(stats)")
        XCTAssertEqual(calls("xreadgroup"), 11, "one read per chunk, and the last claim's that found none:\n\(stats)")
        let scripted = stats.split(whereSeparator: \.isNewline).filter { $0.hasPrefix("cmdstat_") }
            .map { String($0.dropFirst("cmdstat_".count).prefix { $0 != ":" }) }
            .filter { !["evalsha", "eval", "script", "info", "config", "ping", "client", "hello", "select"].contains($0) && !$0.hasPrefix("config") }
            .reduce(0) { $0 + calls($1) }
        XCTAssertLessThanOrEqual(scripted, 2 * 640, "Redis commands for 640 targets: \(scripted)\n\(stats)")
        await q.close()
    }

    /// A chunk's first claim does no Redis work per target: its definitions come with its stream
    /// entry and its open targets are one bitmap, so claiming 10 chunks of 64 runs a few commands
    /// per chunk (a set and a hash of the definitions took one command argument per target and
    /// three reply strings). A claim of 40 splits a chunk: the other 24 become a chunk as queued,
    /// claimed the same way. The push's status lists the claimed targets as claimed meanwhile.
    func testFirstClaimOfAChunkHandsItOutWholeWithoutPerTargetWork() async throws {
        let q = try queue(capacity: 10_000)
        try await q.prepare()
        _ = try await q.enqueue(PushQueueContract.submission("p_1", tokens: 640, at: Date()))
        _ = try server.cli(["CONFIG", "RESETSTAT"])
        var claims: [ClaimedTarget] = []
        for _ in 0..<10 { claims += try await q.claim(consumer: "n1", limit: 64, lease: .seconds(30)) }
        XCTAssertEqual(claims.map(\.index), Array(0..<640))
        XCTAssertEqual(claims.map(\.target.value), PushQueueContract.submission("p_1", tokens: 640, at: Date()).targets.map(\.value))
        XCTAssertEqual(Set(claims.map(\.receipt)).count, 10, "one receipt per chunk")
        let stats = try server.cli(["INFO", "commandstats"])
        let commands = stats.split(whereSeparator: \.isNewline).filter { $0.hasPrefix("cmdstat_") && !$0.hasPrefix("cmdstat_evalsha:") }
            .compactMap { line in line.split(separator: ",").first { $0.contains("calls=") }.flatMap { Int($0.split(separator: "=").last ?? "") } }
            .reduce(0, +)
        XCTAssertLessThanOrEqual(commands, 10 * 12, "Redis commands for 10 claims of a chunk each:\n\(stats)")
        XCTAssertFalse(stats.contains("cmdstat_sadd:"), "no set of open targets:\n\(stats)")
        XCTAssertTrue(stats.contains("cmdstat_hmget:calls=1,"), "one lookup: the push's content, once per node:\n\(stats)")
        var status = try await q.status(of: "p_1", includeTargets: true)
        XCTAssertEqual(status?.targets.filter { $0.phase == .claimed }.count, 640)
        try await q.complete(claims.map { PushQueueContract.sent($0, at: Date()) })
        XCTAssertEqual(try server.cli(["XLEN", "pushlab:work"]), "0", "every chunk acknowledged")

        _ = try await q.enqueue(PushQueueContract.submission("p_2", tokens: 64, at: Date()))
        let part = try await q.claim(consumer: "n1", limit: 40, lease: .seconds(30))
        XCTAssertEqual(part.map(\.index), Array(0..<40))
        status = try await q.status(of: "p_2", includeTargets: true)
        XCTAssertEqual(status?.targets.filter { $0.phase == .claimed }.map(\.index), Array(0..<40))
        XCTAssertEqual(status?.targets.filter { $0.phase == .waiting }.map(\.index), Array(40..<64))
        let rest = try await q.claim(consumer: "n2", limit: 64, lease: .seconds(30))
        XCTAssertEqual(rest.map(\.index), Array(40..<64))
        XCTAssertEqual(rest.map(\.target.value), Array(PushQueueContract.submission("p_2", tokens: 64, at: Date()).targets.map(\.value)[40...]))
        try await q.complete((part + rest).map { PushQueueContract.sent($0, at: Date()) })
        let depth = try await q.depth()
        XCTAssertEqual(depth, QueueDepth(waiting: 0, claimed: 0, finished: 704))
        XCTAssertEqual(try server.cli(["XLEN", "pushlab:work"]), "0")
        XCTAssertEqual(try server.cli(["KEYS", "pushlab:out*"]), "", "no open-target set or bitmap left")
        await q.close()
    }

    /// A push's definitions are stored once per chunk (`P:targets:ID` field `cF`), and every path
    /// that needs a target's own finds it across chunks: a take-over, a retry, a dead letter and
    /// the push's status.
    func testDefinitionsStoredPerChunkServeTakeOversRetriesDeadLettersAndStatus() async throws {
        let time = ManualTimeSource()
        let q = try queue(time: time, maxDeliveries: 2)
        try await q.prepare()
        let submission = PushQueueContract.submission("p_1", tokens: 130, at: time.now)
        let values = submission.targets.map(\.value)
        _ = try await q.enqueue(submission)
        XCTAssertEqual(try server.cli(["HLEN", "pushlab:targets:p_1"]), "3", "one field per chunk of 64")
        let first = try await q.claim(consumer: "a", limit: 192, lease: .seconds(5))
        XCTAssertEqual(first.map(\.target.value), values)
        let retried = try XCTUnwrap(first.first { $0.index == 100 })
        try await q.reschedule([TargetRetry(retried, attempts: 1, lastError: "503", notBefore: time.now)])
        try await q.complete(first.filter { $0.index >= 64 && $0.index != 100 }.map { PushQueueContract.sent($0, at: time.now) })
        time.advance(by: 6)
        // Chunk 1's lease ended: taken over (its second delivery), and target 100 is due.
        let second = try await q.claim(consumer: "b", limit: 192, lease: .seconds(5))
        XCTAssertEqual(second.map(\.index), Array(0..<64) + [100])
        XCTAssertEqual(second.map(\.target.value), Array(values[0..<64]) + [values[100]])
        try await q.complete(second.filter { $0.index == 100 }.map { PushQueueContract.sent($0, at: time.now) })
        time.advance(by: 6)
        // Its third delivery is past maxDeliveries: its 64 open targets are dead letters.
        let third = try await q.claim(consumer: "c", limit: 192, lease: .seconds(5))
        XCTAssertEqual(third.count, 0)
        XCTAssertTrue(try server.cli(["XREVRANGE", "pushlab:dead", "+", "-", "COUNT", "1"]).contains(values[63]), "the dead letter names its token")
        let status = try await q.status(of: "p_1", includeTargets: true)
        XCTAssertEqual(status?.targets.map(\.target.value), values)
        XCTAssertEqual(status?.targets.filter { $0.outcome?.reason == "DeadLetter" }.map(\.index), Array(0..<64))
        XCTAssertEqual(status.map { $0.sent + $0.failed }, 130)
        await q.close()
    }

    /// A target whose definition is gone from Redis (its chunk's field deleted) is never handed
    /// out with an empty token: the claim gives it a final failure, `MissingDefinition`, and a
    /// dead letter naming the missing field; the chunk's other targets go on as usual.
    func testATargetWhoseDefinitionIsGoneIsAFinalFailureNotAnEmptyToken() async throws {
        let time = ManualTimeSource()
        let q = try queue(time: time)
        try await q.prepare()
        let submission = PushQueueContract.submission("p_1", tokens: 70, at: time.now)
        _ = try await q.enqueue(submission)
        // The first node dies holding both chunks (0…63 and 64…69); then chunk 64's definitions go.
        let first = try await q.claim(consumer: "dies", limit: 100, lease: .seconds(5))
        XCTAssertEqual(first.count, 70)
        XCTAssertEqual(try server.cli(["HDEL", "pushlab:targets:p_1", "c64"]), "1")
        time.advance(by: 6)
        let second = try await q.claim(consumer: "n2", limit: 100, lease: .seconds(5))
        XCTAssertEqual(second.map(\.index), Array(0..<64), "the targets without a definition are not handed out")
        XCTAssertFalse(second.contains { $0.target.value.isEmpty }, "no target is sent with an empty token")
        XCTAssertEqual(second.map(\.target.value), Array(submission.targets[0..<64].map(\.value)))
        var status = try await q.status(of: "p_1", includeTargets: true)
        XCTAssertEqual(status?.failed, 6)
        let dead = try server.cli(["XREVRANGE", "pushlab:dead", "+", "-", "COUNT", "1"])
        XCTAssertTrue(dead.contains("MissingDefinition") && dead.contains("pushlab:targets:p_1 field c64"), dead)
        var depth = try await q.depth()
        XCTAssertEqual(depth, QueueDepth(waiting: 0, claimed: 64, finished: 6))
        try await q.complete(second.map { PushQueueContract.sent($0, at: time.now) })
        status = try await q.status(of: "p_1", includeTargets: true)
        XCTAssertEqual(status?.isFinished, true)
        XCTAssertEqual(status.map { [$0.sent, $0.failed] }, [64, 6])
        let cluster = try await q.clusterStatus()
        XCTAssertEqual(cluster.deadLetterCount, 6)
        depth = try await q.depth()
        XCTAssertEqual(depth, QueueDepth(waiting: 0, claimed: 0, finished: 70))
        XCTAssertEqual(try server.cli(["XLEN", "pushlab:work"]), "0")
        // Every target of the lost chunk has its final result, named.
        let results = try server.cli(["HGET", "pushlab:results:p_1", "69"])
        XCTAssertTrue(results.contains("MissingDefinition"), results)
        await q.close()
    }

    /// A chunk taken over after its node died part-way: only its targets without a result that
    /// were not rescheduled are handed out again; the dead node's late reschedule of a target
    /// its successor holds is refused (no second copy in the retry queue), and the rescheduled
    /// target comes back once, at its time.
    func testTakeOverOfAPartlyAnsweredChunkHandsOutOnlyItsOpenTargets() async throws {
        let time = ManualTimeSource()
        let q = try queue(time: time)
        try await q.prepare()
        _ = try await q.enqueue(PushQueueContract.submission("p_1", tokens: 4, at: time.now))
        let first = try await q.claim(consumer: "dies", limit: 10, lease: .seconds(5))
        XCTAssertEqual(first.map(\.index), [0, 1, 2, 3])
        try await q.complete([PushQueueContract.sent(first[0], at: time.now)])
        try await q.reschedule([TargetRetry(first[1], attempts: 1, lastError: "503", notBefore: time.now.addingTimeInterval(20))])
        time.advance(by: 6)
        let second = try await q.claim(consumer: "n2", limit: 10, lease: .seconds(5))
        XCTAssertEqual(second.map(\.index), [2, 3], "answered and rescheduled targets stay out")
        var depth = try await q.depth()
        XCTAssertEqual(depth, QueueDepth(waiting: 1, claimed: 2, finished: 1))
        // The first node's late answer for target 2 is a retry: its chunk is n2's now.
        try await q.reschedule([TargetRetry(first[2], attempts: 1, lastError: "503", notBefore: time.now)])
        XCTAssertEqual(try server.cli(["ZCARD", "pushlab:delayed"]), "1", "only target 1 waits for a retry")
        try await q.complete(second.map { PushQueueContract.sent($0, at: time.now) })
        XCTAssertEqual(try server.cli(["XLEN", "pushlab:work"]), "0")
        time.advance(by: 20)
        let retry = try await q.claim(consumer: "n2", limit: 10, lease: .seconds(5))
        XCTAssertEqual(retry.map(\.index), [1])
        XCTAssertEqual(retry.first?.attempts, 1)
        try await q.complete(retry.map { PushQueueContract.sent($0, at: time.now) })
        depth = try await q.depth()
        XCTAssertEqual(depth, QueueDepth(waiting: 0, claimed: 0, finished: 4))
        let status = try await q.status(of: "p_1", includeTargets: false)
        XCTAssertEqual(status?.sent, 4)
        XCTAssertEqual(try server.cli(["XLEN", "pushlab:work"]), "0")
        await q.close()
    }

    /// A renewal that comes after the lease ran out and the chunk went to another node extends
    /// nothing: the chunk stays with its new holder's lease.
    func testLateRenewalDoesNotExtendAnotherNodesLease() async throws {
        let time = ManualTimeSource()
        let q = try queue(time: time)
        try await q.prepare()
        _ = try await q.enqueue(PushQueueContract.submission("p_1", tokens: 3, at: time.now))
        let held = try await q.claim(consumer: "slow", limit: 10, lease: .seconds(10))
        time.advance(by: 11)
        let taken = try await q.claim(consumer: "other", limit: 10, lease: .seconds(10))
        XCTAssertEqual(taken.count, 3)
        try await q.renew(receipts: held.map(\.receipt), lease: .seconds(100))
        time.advance(by: 11)
        let third = try await q.claim(consumer: "third", limit: 10, lease: .seconds(10))
        XCTAssertEqual(third.count, 3, "the late renewal extended nothing")
        await q.close()
    }

    /// What a pushlab from before chunks left in Redis is still read: a stream entry of one
    /// target (its fields `p i a k e v`) is claimed as a chunk of one, and a delivery-log entry
    /// of one result (`p i k e v o t`) is listed with the batches.
    func testEntriesWrittenBeforeChunksAreStillClaimedAndListed() async throws {
        let q = try queue()
        try await q.prepare()
        let token = String(repeating: "ab", count: 32), sep = "\u{1f}"
        _ = try server.cli(["HSET", "pushlab:push:p_old", "app", "demo", "content", "{}", "count", "1", "accepted", "0",
                            "sent", "0", "failed", "0", "key", "", "fp", ""])
        _ = try server.cli(["HSET", "pushlab:targets:p_old", "0", "apns" + sep + sep + token])
        _ = try server.cli(["INCRBY", "pushlab:unfinished", "1"])
        _ = try server.cli(["XADD", "pushlab:work", "*", "p", "p_old", "i", "0", "a", "demo", "k", "apns", "e", "", "v", token])
        // A chunk as a pushlab from before the definitions in the entry queued it (f, n only).
        _ = try server.cli(["HSET", "pushlab:push:p_chunk", "app", "demo", "content", "{}", "count", "2", "accepted", "0",
                            "sent", "0", "failed", "0", "key", "", "fp", ""])
        let chunkToken = String(repeating: "cd", count: 32)
        _ = try server.cli(["HSET", "pushlab:targets:p_chunk", "0", "apns" + sep + sep + chunkToken, "1", "fcm" + sep + sep + "f1"])
        _ = try server.cli(["INCRBY", "pushlab:unfinished", "2"])
        _ = try server.cli(["XADD", "pushlab:work", "*", "p", "p_chunk", "a", "demo", "f", "0", "n", "2"])
        let old = TargetOutcome(status: .sent, httpStatus: 200, providerID: "old", attempts: 1, finishedAt: Date(timeIntervalSince1970: 1_000))
        _ = try server.cli(["XADD", "pushlab:delivered:demo", "*", "p", "p_gone", "i", "3", "k", "apns", "e", "", "v", token,
                            "o", String(decoding: try JSONEncoder.secondsSince1970.encode(old), as: UTF8.self), "t", "1000"])
        // A batch entry as written before 2026-12-06: each line `p i kind env value outcome at`,
        // the outcome a JSON object; and a done marker of that form.
        let batchOutcome = TargetOutcome(status: .failed, httpStatus: 410, reason: "Unregistered", providerID: "b1", tokenInvalid: true,
                                         attempts: 2, finishedAt: Date(timeIntervalSince1970: 2_000.5))
        let batchJSON = String(decoding: try JSONEncoder.secondsSince1970.encode(batchOutcome), as: UTF8.self)
        _ = try server.cli(["XADD", "pushlab:delivered:demo", "*", "n", "1", "t", "2000.5",
                            "b", ["p_batch", "7", "apns", "production", token, batchJSON, "2000.5"].joined(separator: sep)])
        _ = try server.cli(["HSET", "pushlab:push:p_done", "app", "demo", "content", "{}", "count", "1", "accepted", "0",
                            "sent", "0", "failed", "1", "key", "", "fp", ""])
        _ = try server.cli(["HSET", "pushlab:targets:p_done", "0", "apns" + sep + sep + token])
        _ = try server.cli(["HSET", "pushlab:results:p_done", "0", batchJSON])
        let claims = try await q.claim(consumer: "n1", limit: 10, lease: .seconds(30))
        XCTAssertEqual(claims.map(\.pushID), ["p_chunk", "p_chunk", "p_old"])
        XCTAssertEqual(claims.map(\.target.value), [chunkToken, "f1", token])
        XCTAssertEqual(claims.map(\.target.kind), [.apnsToken, .fcmToken, .apnsToken])
        try await q.complete(claims.map { PushQueueContract.sent($0, at: Date()) })
        XCTAssertEqual(try server.cli(["XLEN", "pushlab:work"]), "0")
        let delivered = try await q.deliveries(app: "demo", token: token, since: nil, limit: 10)
        XCTAssertEqual(delivered.map(\.pushID), ["p_old", "p_batch", "p_gone"], "newest first, the old entries too")
        XCTAssertEqual(delivered.map(\.index), [0, 7, 3])
        XCTAssertEqual(delivered[1].outcome, batchOutcome, "an outcome stored as a JSON object reads back")
        XCTAssertEqual(delivered[0].target.value, token)
        // Written now: the outcome is the compact array, the line has no push id (the entry's `p`).
        XCTAssertTrue(try server.cli(["HGET", "pushlab:results:p_old", "0"]).hasPrefix("[1,"))
        XCTAssertTrue(try server.cli(["XREVRANGE", "pushlab:delivered:demo", "+", "-", "COUNT", "1"]).split(separator: "\n").contains("p_old"))
        let now = try await q.status(of: "p_old", includeTargets: true)
        XCTAssertEqual(now?.targets.first?.outcome?.status, .sent)
        let done = try await q.status(of: "p_done", includeTargets: true)
        XCTAssertEqual(done?.targets.first?.outcome, batchOutcome, "a done marker stored as a JSON object reads back")
        await q.close()
    }
}

private extension JSONEncoder {
    static var secondsSince1970: JSONEncoder {
        let e = JSONEncoder()
        e.dateEncodingStrategy = .secondsSince1970
        return e
    }
}

import PushRedis
import TestSupport
import XCTest

/// The client against a real redis-server on a free port.
final class RedisClientTests: XCTestCase {
    private var server: RedisServer!
    private var client: RedisClient!

    override func setUpWithError() throws {
        server = try RedisServer()
        client = RedisClient(endpoint: try RedisEndpoint(url: server.url))
    }

    override func tearDown() {
        client?.close()
        server?.stop()
        server = nil
    }

    func testValuesRoundTripBinarySafe() async throws {
        let value = "a\u{0}b\r\nc ✓"
        try await client.set("k", value: value)
        let read = try await client.get("k")
        XCTAssertEqual(read, value)
        let missing = try await client.get("missing")
        XCTAssertNil(missing)
    }

    func testPipelineAnswersInOrderWithErrorsInPlace() async throws {
        let replies = try await client.pipeline([
            RedisCommand("SET", "n", "1"), RedisCommand("INCR", "n"), RedisCommand("HGET", "n", "f"), RedisCommand("GET", "n"),
        ])
        XCTAssertEqual(replies.count, 4)
        XCTAssertEqual(replies[0], .status("OK"))
        XCTAssertEqual(replies[1], .integer(2))
        XCTAssertEqual(replies[2].errorCode, "WRONGTYPE")
        XCTAssertEqual(replies[3].string, "2")
    }

    func testServerErrorIsThrownForASingleCommand() async throws {
        let error = await redisError { try await self.client.execute(RedisCommand("NOSUCHCOMMAND")) }
        guard case .server(let message) = error else { return XCTFail("expected a server error, got \(String(describing: error))") }
        XCTAssertTrue(message.hasPrefix("ERR"), message)
    }

    func testSetIfAbsentLetsExactlyOneCallerWin() async throws {
        let results = try await withThrowingTaskGroup(of: Bool.self) { group in
            for node in 0..<8 {
                let other = RedisClient(endpoint: try RedisEndpoint(url: server.url))
                group.addTask { try await other.setIfAbsent("lock", value: "node-\(node)", expiresIn: .seconds(30)) }
            }
            return try await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        XCTAssertEqual(results.filter { $0 }.count, 1)
        let ttl = try await client.execute(RedisCommand("PTTL", "lock")).integer ?? -1
        XCTAssertGreaterThan(ttl, 0)
        XCTAssertLessThanOrEqual(ttl, 30_000)
    }

    func testConsumerGroupReadAcknowledgeAndPending() async throws {
        let created = try await client.createGroup("s", group: "g")
        let again = try await client.createGroup("s", group: "g")
        XCTAssertTrue(created)
        XCTAssertFalse(again, "BUSYGROUP means it exists")
        let first = try await client.xadd("s", fields: [("push", "p1"), ("targets", "a,b")])
        try await client.xadd("s", fields: [("push", "p2")])
        let read = try await client.xreadgroup("s", group: "g", consumer: "node-a", count: 10)
        XCTAssertEqual(read.map(\.id).first, first)
        XCTAssertEqual(read.first?["targets"], "a,b")
        XCTAssertEqual(read.count, 2)
        var summary = try await client.xpendingSummary("s", group: "g")
        XCTAssertEqual(summary.count, 2)
        XCTAssertEqual(summary.perConsumer, ["node-a": 2])
        let acked = try await client.xack("s", group: "g", ids: [first])
        XCTAssertEqual(acked, 1)
        summary = try await client.xpendingSummary("s", group: "g")
        XCTAssertEqual(summary.count, 1)
        let nothingNew = try await client.xreadgroup("s", group: "g", consumer: "node-a", count: 10)
        XCTAssertEqual(nothingNew, [])
        let groups = try await client.xinfoGroups("s")
        XCTAssertEqual(groups.first?.pending, 1)
        XCTAssertEqual(groups.first?.lag, 0)
    }

    func testGroupCreatedAfterWritesStillReadsThem() async throws {
        // gorush's Redis queue starts its group at `$` and never reads what came before.
        try await client.xadd("early", fields: [("n", "1")])
        try await client.createGroup("early", group: "g")
        let read = try await client.xreadgroup("early", group: "g", consumer: "c", count: 10)
        XCTAssertEqual(read.count, 1)
    }

    func testAutoClaimTakesOverAnIdleEntryAndCountsDeliveries() async throws {
        try await client.createGroup("s", group: "g")
        let id = try await client.xadd("s", fields: [("n", "1")])
        _ = try await client.xreadgroup("s", group: "g", consumer: "dead-node", count: 1)
        let tooSoon = try await client.xautoclaim("s", group: "g", consumer: "survivor", minIdle: .seconds(600))
        XCTAssertEqual(tooSoon.entries, [])
        let claimed = try await client.xautoclaim("s", group: "g", consumer: "survivor", minIdle: .zero)
        XCTAssertEqual(claimed.entries.map(\.id), [id])
        XCTAssertEqual(claimed.nextStart, "0-0")
        let pending = try await client.xpending("s", group: "g")
        XCTAssertEqual(pending.map(\.consumer), ["survivor"])
        XCTAssertEqual(pending.map(\.deliveries), [2])
    }

    func testAutoClaimReportsEntriesDeletedWhilePending() async throws {
        try await client.createGroup("s", group: "g")
        let id = try await client.xadd("s", fields: [("n", "1")])
        _ = try await client.xreadgroup("s", group: "g", consumer: "a", count: 1)
        try await client.execute(RedisCommand("XDEL", "s", id))
        let claimed = try await client.xautoclaim("s", group: "g", consumer: "b", minIdle: .zero)
        XCTAssertEqual(claimed.entries, [])
        XCTAssertEqual(claimed.deletedIDs, [id])
    }

    func testBlockingReadWakesWhenAnEntryArrives() async throws {
        try await client.createGroup("s", group: "g")
        let reader = RedisClient(endpoint: try RedisEndpoint(url: server.url))
        defer { reader.close() }
        let waiting = Task { try await reader.xreadgroup("s", group: "g", consumer: "c", count: 1, block: .seconds(20)) }
        // Written once the reader is blocked (CLIENT LIST shows it), so the read must wake for it.
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            let blocked = try await client.execute(RedisCommand("INFO", "clients")).string ?? ""
            if blocked.contains("blocked_clients:1") { break }
            try await Task.sleep(for: .milliseconds(5))
        }
        let id = try await client.xadd("s", fields: [("n", "1")])
        let read = try await waiting.value
        XCTAssertEqual(read.map(\.id), [id])
    }

    func testBlockingReadEndsEmptyWhenNothingArrives() async throws {
        try await client.createGroup("s", group: "g")
        let read = try await client.xreadgroup("s", group: "g", consumer: "c", count: 1, block: .milliseconds(20))
        XCTAssertEqual(read, [])
    }

    func testReconnectsAfterRedisRestartsAndKeepsWrittenData() async throws {
        try await client.set("kept", value: "yes")
        try server.restart()
        // The old connection is dead: the first command may fail with connectionLost; then the
        // client reconnects by itself.
        let deadline = Date().addingTimeInterval(20)
        var value: String?
        var sawLoss = false
        while Date() < deadline {
            var read: String?
            if let error = await redisError({ read = try await self.client.get("kept") }) {
                XCTAssertTrue(error.isConnectionFailure, "\(error)")
                sawLoss = true
                continue
            }
            value = read
            break
        }
        XCTAssertEqual(value, "yes", "AOF (appendfsync always) keeps what was acknowledged")
        XCTAssertTrue(sawLoss, "the restart must have broken the first connection")
        XCTAssertEqual(client.stats.reconnections, 1)
    }

    /// Issue 43: a blocking read whose connection dies freed the hiredis context and then
    /// restored its timeout on the freed memory (heap corruption; ASan: heap-use-after-free in
    /// `make sanitize`). Ten times: Redis killed (`kill -9`) while the read blocks, the read
    /// fails as a lost connection, Redis restarts, and the same client blocks again.
    func testBlockingReadWhoseRedisIsKilledFailsCleanlyTenTimes() async throws {
        try await client.createGroup("s", group: "g")
        let reader = RedisClient(endpoint: try RedisEndpoint(url: server.url),
                                 options: RedisClientOptions(initialBackoff: .milliseconds(1), maximumBackoff: .milliseconds(20)))
        defer { reader.close() }
        for round in 1...10 {
            let waiting = Task { try await reader.xreadgroup("s", group: "g", consumer: "c", count: 1, block: .seconds(20)) }
            let blocked = await Poll.until(timeout: 20) {
                ((try? self.server.cli(["INFO", "clients"])) ?? "").contains("blocked_clients:1")
            }
            XCTAssertTrue(blocked, "round \(round): the read never blocked")
            server.crash()
            let error = await redisError { _ = try await waiting.value }
            guard case .connectionLost? = error else { return XCTFail("round \(round): expected connectionLost, got \(String(describing: error))") }
            try server.restart()
        }
        _ = await redisError { _ = try await self.client.ping() }  // its connection died with the first kill
        let id = try await client.xadd("s", fields: [("n", "after")])
        let read = try await reader.xreadgroup("s", group: "g", consumer: "c", count: 1, block: .seconds(5))
        XCTAssertEqual(read.map(\.id), [id], "the reader works after ten lost blocking reads")
        XCTAssertEqual(reader.stats.connectionsLost, 10)
    }

    func testNothingListeningIsUnavailableAndBacksOff() async throws {
        let port = server.port
        server.stop()
        let lonely = RedisClient(endpoint: RedisEndpoint(host: "127.0.0.1", port: port),
                                 options: RedisClientOptions(initialBackoff: .seconds(30), maximumBackoff: .seconds(30)))
        for _ in 0..<3 {
            let error = await redisError { _ = try await lonely.ping() }
            guard case .unavailable(let endpoint, let reason) = error else { return XCTFail("expected unavailable, got \(String(describing: error))") }
            XCTAssertEqual(endpoint, "redis://127.0.0.1:\(port)/0")
            XCTAssertTrue(reason.contains("refused"), "the refused attempt's reason, also during the backoff: \(reason)")
        }
        XCTAssertEqual(lonely.stats.failedAttempts, 1, "within the backoff no new attempt is made: the commands fail at once")
        XCTAssertEqual(lonely.stats.connections, 0)
        // Once the backoff has passed, the next command tries again.
        let quick = RedisClient(endpoint: RedisEndpoint(host: "127.0.0.1", port: port),
                                options: RedisClientOptions(initialBackoff: .milliseconds(1), maximumBackoff: .milliseconds(4)))
        let tried = await Poll.until(timeout: 10) {
            _ = await redisError { _ = try await quick.ping() }
            return quick.stats.failedAttempts >= 3
        }
        XCTAssertTrue(tried, "attempts resume after each backoff")
    }

    /// Issue 43: during an outage, commands queued on one client each waited out the backoff
    /// in turn (up to 2 s each), so the 20th of 20 concurrent key lookups got its answer after
    /// ~29 s. Now the ones inside the backoff fail at once.
    func testCommandsQueuedDuringTheBackoffFailAtOnceNotOneBackoffEach() async throws {
        let port = server.port
        server.stop()
        let client = RedisClient(endpoint: RedisEndpoint(host: "127.0.0.1", port: port),
                                 options: RedisClientOptions(initialBackoff: .seconds(30), maximumBackoff: .seconds(30)))
        _ = await redisError { _ = try await client.ping() }  // the attempt that starts the 30 s backoff
        let errors = await withTaskGroup(of: RedisError?.self) { group in
            for _ in 0..<20 { group.addTask { await redisError { _ = try await client.ping() } } }
            return await group.reduce(into: [RedisError?]()) { $0.append($1) }
        }
        XCTAssertEqual(errors.count, 20)
        for error in errors {
            guard case .unavailable? = error else { return XCTFail("expected unavailable, got \(String(describing: error))") }
        }
        XCTAssertEqual(client.stats.failedAttempts, 1, "20 commands inside the backoff: no attempt, and no wait (a wait would be 30 s each)")
    }

    func testScriptRunsAgainAfterTheServerForgetsIt() async throws {
        let script = RedisScript("return redis.call('INCRBY', KEYS[1], ARGV[1])")
        var reply = try await client.eval(script, keys: ["counter"], arguments: ["5"])
        XCTAssertEqual(reply, .integer(5))
        try await client.execute(RedisCommand("SCRIPT", "FLUSH"))
        reply = try await client.eval(script, keys: ["counter"], arguments: ["2"])
        XCTAssertEqual(reply, .integer(7))
        let known = try await client.execute(RedisCommand("SCRIPT", "EXISTS", script.sha1))
        XCTAssertEqual(known, .array([.integer(1)]), "the SHA-1 is the one Redis computes")
    }

    func testDatabaseFromTheURLIsSelected() async throws {
        let other = RedisClient(endpoint: try RedisEndpoint(url: "redis://127.0.0.1:\(server.port)/3"))
        defer { other.close() }
        try await other.set("where", value: "db3")
        XCTAssertEqual(try server.cli(["-n", "3", "GET", "where"]), "db3")
        XCTAssertEqual(try server.cli(["-n", "0", "EXISTS", "where"]), "0")
    }

    func testClientNameShowsInClientList() async throws {
        let named = RedisClient(endpoint: try RedisEndpoint(url: server.url), options: RedisClientOptions(clientName: "relay-node-1"))
        defer { named.close() }
        _ = try await named.ping()
        XCTAssertTrue(try server.cli(["CLIENT", "LIST"]).contains("name=relay-node-1"))
    }
}

/// The `RedisError` `body` threw, or nil when it did not throw one.
func redisError(_ body: () async throws -> Void) async -> RedisError? {
    do {
        try await body()
        return nil
    } catch let error as RedisError {
        return error
    } catch {
        return nil
    }
}

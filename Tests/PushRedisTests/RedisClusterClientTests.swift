@testable import PushRedis
import TestSupport
import XCTest

/// The Redis Cluster client against a real 3-master cluster on loopback (`RedisClusterServers`):
/// slots computed here agree with the server's `CLUSTER KEYSLOT`, commands reach each key's
/// master, and a real slot migration (`CLUSTER SETSLOT` + `MIGRATE`) makes the server answer
/// `-ASK` (mid-migration) and `-MOVED` (after it), which the client follows.
final class RedisClusterClientTests: XCTestCase {
    func testClusterURLsParseAndBadOnesSayHowToWriteThem() throws {
        let cluster = try RedisClusterEndpoint(url: "redis-cluster://:s3cret@10.0.0.1:7000,10.0.0.2:7001,[::1]:7002")
        XCTAssertEqual(cluster.seeds.map(\.port), [7000, 7001, 7002])
        XCTAssertEqual(cluster.seeds.map(\.password), ["s3cret", "s3cret", "s3cret"])
        XCTAssertEqual(cluster.seeds[2].host, "::1")
        XCTAssertEqual(cluster.description, "redis-cluster://:<redacted>@10.0.0.1:7000,10.0.0.2:7001,[::1]:7002")
        for (bad, problem) in [("redis-cluster://", "no HOST:PORT"), ("redis-cluster://a:1,,b:2", "empty HOST:PORT"),
                               ("redis-cluster://a:1/2", "database 0 only"), ("redis-cluster://a:99999", "seed 'a:99999'"),
                               ("redis://a:1", "does not start with redis-cluster://")] {
            XCTAssertThrowsError(try RedisClusterEndpoint(url: bad), bad) { error in
                let text = "\(error)"
                XCTAssertTrue(text.contains(problem) && text.contains("redis-cluster://HOST:PORT,HOST:PORT"), text)
            }
        }
    }

    func testSlotsAgreeWithTheServersKeyslotHashTagsIncluded() throws {
        let servers = try RedisClusterServers()
        defer { servers.stop() }
        // The CRC16 check value: "123456789" → 0x31C3 = 12739 (Redis Cluster specification).
        XCTAssertEqual(RedisHashSlot.slot(of: "123456789"), 12739)
        let keys = ["foo", "bar", "123456789", "{user1000}.following", "{user1000}.followers", "foo{}{bar}", "foo{{bar}}zap",
                    "foo{bar}{zap}", "{pushlab.0}:work", "{pushlab.0}:push:1f3c", "{pushlab}:apikeys", "pushlab:work", "{", "}{", "é{ü}"]
        for key in keys {
            XCTAssertEqual(String(RedisHashSlot.slot(of: key)), try servers.nodes[0].cli(["CLUSTER", "KEYSLOT", key]), key)
        }
        XCTAssertEqual(RedisHashSlot.slot(of: "{user1000}.following"), RedisHashSlot.slot(of: "{user1000}.followers"))
    }

    func testCommandsReachEachKeysMasterAndAScriptOverOneHashTagRuns() async throws {
        let servers = try RedisClusterServers()
        defer { servers.stop() }
        let client = RedisClient(cluster: try RedisClusterEndpoint(url: servers.url))
        defer { client.close() }
        let keys = (0..<60).map { "k\($0)" }
        // One pipeline over every master: split per master, answers back in order.
        let replies = try await client.pipeline(keys.map { RedisCommand("SET", $0, "v-\($0)") } + keys.map { RedisCommand("GET", $0) })
        XCTAssertEqual(replies.suffix(keys.count).map(\.string), keys.map { "v-\($0)" })
        let found = try await client.shards()
        let shards = try XCTUnwrap(found)
        XCTAssertEqual(shards.count, 3)
        XCTAssertEqual(shards.flatMap(\.slots).reduce(0) { $0 + $1.count }, RedisHashSlot.count)
        // Each key is on the master that serves its slot (asked without the client).
        for key in keys.prefix(10) {
            let owner = try servers.master(ofSlot: RedisHashSlot.slot(of: key))
            XCTAssertEqual(try owner.cli(["GET", key]), "v-\(key)", key)
        }
        let script = RedisScript("redis.call('SET', KEYS[1], 'a'); redis.call('SET', ARGV[1] .. ':b', 'b'); return redis.call('GET', ARGV[1] .. ':b')")
        let answer = try await client.eval(script, keys: ["{tag}:a"], arguments: ["{tag}"])
        XCTAssertEqual(answer.string, "b")
        XCTAssertEqual(client.clusterCounters?.moved, 0)
    }

    func testASlotMigrationAnswersAskMidwayAndMovedAfterwardAndTheClientFollowsBoth() async throws {
        let servers = try RedisClusterServers()
        defer { servers.stop() }
        let client = RedisClient(cluster: try RedisClusterEndpoint(url: servers.url))
        defer { client.close() }
        let keys = (0..<6).map { "{moving}:\($0)" }
        for key in keys { try await client.execute(RedisCommand("SET", key, "v-\(key)")) }
        let slot = RedisHashSlot.slot(of: "{moving}")
        let source = try servers.master(ofSlot: slot)
        let target = try XCTUnwrap(servers.nodes.first { $0.port != source.port })
        // Half the keys moved, the slot still the source's: the source answers -ASK for those.
        let move = try servers.startMoving(slot, to: target, keysFirst: 3)
        let midway = try await client.pipeline(keys.map { RedisCommand("GET", $0) }).map(\.string)
        try servers.finish(move)
        XCTAssertEqual(midway, keys.map { "v-\($0)" }, "every key readable during the migration")
        XCTAssertGreaterThanOrEqual(client.clusterCounters?.ask ?? 0, 1, "the moved keys were read through -ASK")
        XCTAssertEqual(client.clusterCounters?.moved, 0)
        // Now the slot is the target's: the client's map is stale, the source answers -MOVED.
        let after = try await client.pipeline(keys.map { RedisCommand("GET", $0) })
        XCTAssertEqual(after.map(\.string), keys.map { "v-\($0)" })
        XCTAssertGreaterThanOrEqual(client.clusterCounters?.moved ?? 0, 1, "-MOVED followed")
        let found = try await client.shards()
        let shards = try XCTUnwrap(found)
        XCTAssertEqual(shards.first { $0.slots.contains { $0.contains(slot) } }?.address, "127.0.0.1:\(target.port)")
        try await client.execute(RedisCommand("SET", keys[0], "new"))
        XCTAssertEqual(try target.cli(["GET", keys[0]]), "new", "written on the new master")
    }
}

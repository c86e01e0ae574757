import Foundation
import TestSupport
import XCTest

/// Three `pushlab relay` processes on a real 3-master Redis Cluster (`--queue
/// redis-cluster://…`, one stream per master), sending to the emulator: a node killed with
/// `kill -9` mid-push leaves every target delivered at least once, exactly one final result
/// written per target (counted in the delivery logs of every stream, a line per write), and
/// duplicate sends within the documented bound (the killed node's sends in flight and answers
/// not yet recorded); `/v1/cluster` shows the masters and their streams.
final class RelayRedisClusterProcessTests: XCTestCase {
    private let concurrency = 16

    func testKillDashNineOfANodeOnARedisClusterDeliversEveryTargetOnceRecordedDuplicatesBounded() throws {
        let cluster = try RelayClusterFixture(name: "relay-redis-cluster", concurrency: concurrency, ratePerMinute: 30_000, redisCluster: true)
        defer { cluster.stop() }
        let nodes = try ["n1", "n2", "n3"].map { try cluster.startNode($0) }
        // Several pushes, so the cluster's three streams (a push lives in one) all get work.
        let pushes = (0..<4).map { cluster.tokens(300, base: 0xE1_0000 + $0 * 0x1000) }
        var ids: [String] = []
        for (k, tokens) in pushes.enumerated() { ids.append(try cluster.post(nodes[k % 3].url, tokens: tokens)) }
        let targets = pushes.joined().count
        XCTAssertTrue(Poll.blocking(timeout: 60) { cluster.finishedTargets() >= targets / 4 }, "no progress:\n\(nodes[1].process.stderr)")
        _ = nodes[1].process.killHard()
        let killedAt = cluster.finishedTargets()
        XCTAssertLessThan(killedAt, targets, "the kill must land before the pushes finished")
        for (k, id) in ids.enumerated() {
            let done = try cluster.waitFinished(nodes[2].url, id)
            XCTAssertTrue(done.contains(#""sent":\#(pushes[k].count)"#), done)
        }
        let admin = try ProcessRunner.pushlab(["relay", "keys", "create", "--queue", cluster.queueURL, "--admin"]).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let status = try cluster.curl([nodes[0].url + "/v1/cluster", "-H", "authorization: Bearer \(admin)"]).stdout
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(status.utf8)) as? [String: Any], status)
        let shards = try XCTUnwrap(json["shards"] as? [[String: Any]], status)
        XCTAssertEqual(Set(shards.compactMap { $0["master"] as? String }),
                       Set(try XCTUnwrap(cluster.redisCluster).nodes.map { "127.0.0.1:\($0.port)" }), status)
        XCTAssertTrue(shards.allSatisfy { ($0["lanes"] as? [String])?.count == 1 }, "one stream per master: \(status)")
        XCTAssertEqual((json["queue"] as? [String: Any])?["finished"] as? Int, targets, status)

        for node in [nodes[0], nodes[2]] { node.process.stop(grace: 10) }
        let (accepted, tokenUpdates) = try cluster.emulatorRecords()
        let all = Array(pushes.joined())
        let missing = Set(all).subtracting(accepted.keys)
        XCTAssertEqual(missing.count, 0, "every acknowledged target reached the emulator; missing e.g. \(missing.prefix(3))")
        let duplicates = accepted.values.reduce(0) { $0 + max(0, $1 - 1) }
        XCTAssertLessThanOrEqual(duplicates, 2 * concurrency, "one kill repeats at most the killed node's sends in flight and answers not yet recorded")
        let writes = try cluster.resultWrites(all)
        let rewritten = writes.perToken.filter { $0.value != 1 }
        XCTAssertEqual(rewritten.count, 0, "each target's result written exactly once; not so for e.g. \(rewritten.prefix(3))")
        XCTAssertEqual(writes.total, targets, "result writes in the delivery logs")
        XCTAssertEqual(cluster.finishedTargets(), targets, "final results counted once each")
        XCTAssertEqual(tokenUpdates, 0, "the nodes share one provider token (its key on one master)")
        print("relay Redis Cluster kill test: 3 nodes, 3 masters, \(targets) targets, node 2 killed at \(killedAt) finished; duplicates sent: \(duplicates)")
    }

    /// `--queue redis-cluster://…` input errors: exit 2, the flag and both URL forms named.
    func testBadClusterURLAndUnreachableClusterExitTwo() throws {
        let directory = Fixtures.temporaryDirectory("relay-cluster-flags")
        defer { try? FileManager.default.removeItem(at: directory) }
        let config = directory.appendingPathComponent("relay.json").path
        try RelayEmulatorConfig.write(to: config, apnsPort: 2197, concurrency: 4, leaseSeconds: 5, ratePerMinute: 600)
        let data = directory.appendingPathComponent("data").path
        let empty = try ProcessRunner.pushlab(["relay", "--config", config, "--data", data, "--queue", "redis-cluster://127.0.0.1:7000,,x:1", "--check"])
        XCTAssertEqual(empty.status, 2, empty.stderr)
        XCTAssertTrue(empty.stderr.contains("--queue: 'redis-cluster://127.0.0.1:7000,,x:1' is not a Redis URL: an empty HOST:PORT between commas"),
                      empty.stderr)
        XCTAssertTrue(empty.stderr.contains("redis-cluster://HOST:PORT,HOST:PORT"), empty.stderr)
        let closed = try ClosedPort()
        let unreachable = try ProcessRunner.pushlab(["relay", "--config", config, "--data", data,
                                                     "--queue", "redis-cluster://:pw-s3cret@127.0.0.1:\(closed.port)", "--check"])
        XCTAssertEqual(unreachable.status, 2, unreachable.stderr)
        XCTAssertTrue(unreachable.stderr.contains("--queue redis-cluster://:<redacted>@127.0.0.1:\(closed.port)"), unreachable.stderr)
        XCTAssertFalse((unreachable.stdout + unreachable.stderr).contains("pw-s3cret"), "the password is never printed")
        withExtendedLifetime(closed) {}
    }
}

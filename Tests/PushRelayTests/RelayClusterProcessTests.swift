import Foundation
import TestSupport
import XCTest

/// Several `pushlab relay` processes on one real redis-server (`--queue redis://…`), sending to
/// the emulator (`pushlab serve --db --token-updates team`, another real process) — the gorush
/// failure reports as tests: every target reaches the emulator at least once, the duplicates
/// (counted in the emulator's records) stay within the documented bound of a killed node's
/// sends in flight and unrecorded answers, every target's final result is written exactly once
/// (counted in the delivery log, where each write leaves a line, so a second write shows), an
/// idle cluster picks up a new push, Redis restarted mid-run loses nothing acknowledged, and the
/// nodes share one provider token (the emulator answers zero TooManyProviderTokenUpdates).
final class RelayClusterProcessTests: XCTestCase {
    private var cluster: RelayClusterFixture!
    /// Sends in flight per node (relay.json workers.concurrency): a killed node leaves at most
    /// twice as many sent-but-unrecorded (its sends in flight and the answers waiting for their
    /// commit), so that many duplicates one kill may cause (docs/relay.md "Guarantees").
    private let concurrency = 16
    private var redis: RedisServer { cluster.redis }
    private var key: String { cluster.key }

    override func setUpWithError() throws {
        // 30,000 sends a minute for the app across the cluster (500/s): a push of a thousand
        // targets takes seconds, so a kill or a Redis restart lands mid-push.
        cluster = try RelayClusterFixture(name: "relay-cluster", concurrency: concurrency, ratePerMinute: 30_000)
    }

    override func tearDown() {
        cluster?.stop()
    }

    private func data(_ node: String) -> String { cluster.data(node) }
    private func startNode(_ name: String) throws -> (ServerProcess, String) {
        let node = try cluster.startNode(name)
        return (node.process, node.url)
    }
    private func curl(_ args: [String]) throws -> ProcessResult { try cluster.curl(args) }
    private func post(_ url: String, tokens: [String]) throws -> String { try cluster.post(url, tokens: tokens) }
    private func waitFinished(_ url: String, _ id: String, timeout: TimeInterval = 60) throws -> String {
        try cluster.waitFinished(url, id, timeout: timeout)
    }
    private func finishedTargets() -> Int { cluster.finishedTargets() }
    private func emulatorRecords() throws -> (accepted: [String: Int], tokenUpdates: Int) { try cluster.emulatorRecords() }
    private func tokens(_ count: Int, base: Int) -> [String] { cluster.tokens(count, base: base) }

    private func resultWrites(_ tokens: [String]) throws -> (perToken: [String: Int], total: Int) { try cluster.resultWrites(tokens) }

    func testKillDashNineOfOneOfThreeNodesDeliversEveryTargetAtLeastOnceDuplicatesBoundedResultsWrittenOnceAndIdleClusterPicksUp() throws {
        let targets = 1_200
        var nodes = try ["n1", "n2", "n3"].map(startNode)
        let first = tokens(targets, base: 0xC1_0000)
        let id = try post(nodes[0].1, tokens: first)
        // kill -9 node 2 once the cluster is a quarter through; the others take its leased
        // targets over when their leases (5 s) end.
        XCTAssertTrue(Poll.blocking(timeout: 60) { self.finishedTargets() >= targets / 4 }, "no progress:\n\(nodes[1].0.stderr)")
        _ = nodes[1].0.killHard()
        let killedAt = finishedTargets()
        let done = try waitFinished(nodes[2].1, id)
        XCTAssertTrue(done.contains(#""sent":\#(targets)"#), done)
        XCTAssertLessThan(killedAt, targets, "the kill must land before the push finished")
        // Exactly one final result per target, recorded in Redis.
        XCTAssertEqual(try redis.cli(["HLEN", "pushlab:results:\(id)"]), String(targets))
        // Node 2 comes back under its name; the cluster is idle now, and a new push is picked up.
        nodes[1] = try startNode("n2")
        let admin = try ProcessRunner.pushlab(["relay", "keys", "create", "--queue", redis.url, "--admin"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let refused = try curl([nodes[1].1 + "/v1/cluster", "-H", "authorization: Bearer \(key)", "-w", "\n%{http_code}"])
        XCTAssertTrue(refused.stdout.hasSuffix("\n403"), "an app key is not an admin key: \(refused.stdout)")
        let cluster = try curl([nodes[1].1 + "/v1/cluster", "-H", "authorization: Bearer \(admin)"]).stdout
        for name in ["n1", "n2", "n3"] { XCTAssertTrue(cluster.contains("\"name\": \"\(name)\""), cluster) }
        XCTAssertTrue(cluster.contains("\"redis\": \"redis://127.0.0.1:\(redis.port)/0\""), cluster)
        let metrics = try curl([nodes[0].1 + "/metrics", "-H", "authorization: Bearer \(admin)"]).stdout
        XCTAssertTrue(metrics.contains("pushlab_relay_cluster_nodes{state=\"alive\"}"), metrics)
        let second = tokens(20, base: 0xC2_0000)
        let idle = try post(nodes[1].1, tokens: second)
        let idleDone = try waitFinished(nodes[0].1, idle, timeout: 30)
        XCTAssertTrue(idleDone.contains(#""sent":20"#), idleDone)

        for node in nodes { node.0.stop(grace: 10) }
        let (accepted, tokenUpdates) = try emulatorRecords()
        let missing = Set(first + second).subtracting(accepted.keys)
        XCTAssertEqual(missing.count, 0, "every acknowledged target reached the emulator; missing e.g. \(missing.prefix(3))")
        let duplicates = accepted.values.reduce(0) { $0 + max(0, $1 - 1) }
        XCTAssertLessThanOrEqual(duplicates, 2 * concurrency, "one kill repeats at most the killed node's sends in flight and answers not yet recorded")
        let writes = try resultWrites(first + second)
        let rewritten = writes.perToken.filter { $0.value != 1 }
        XCTAssertEqual(rewritten.count, 0, "each target's result written exactly once; not so for e.g. \(rewritten.prefix(3))")
        XCTAssertEqual(writes.total, targets + 20, "result writes in the delivery log")
        XCTAssertEqual(try redis.cli(["GET", "pushlab:finished"]), String(targets + 20), "final results counted once each")
        XCTAssertEqual(tokenUpdates, 0, "three nodes share one provider token per (team, key)")
        print("relay cluster kill test: 3 nodes, \(targets) targets, node 2 killed at \(killedAt) finished; duplicates sent: \(duplicates)")
    }

    /// API keys are the cluster's: made with `relay keys create --queue` (no node's --data),
    /// one works on both nodes (each with its own data directory), `list` shows it, and
    /// `revoke` takes effect on both at the next request — also right after the nodes used it
    /// (so they remember it) and lost their Redis connections.
    func testAKeyMadeForTheClusterWorksOnEveryNodeAndItsRevokeOnAll() throws {
        let nodes = try ["k1", "k2"].map(startNode)
        let made = try ProcessRunner.pushlab(["relay", "keys", "create", "--queue", redis.url, "--app", "demo", "--label", "cluster", "--json"])
        XCTAssertEqual(made.status, 0, made.stderr)
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(made.stdout.utf8)) as? [String: Any])
        let clusterKey = try XCTUnwrap(json["key"] as? String), id = try XCTUnwrap(json["id"] as? String)
        func status(_ url: String) throws -> String {
            try curl([url + "/v1/apps/demo/deliveries?limit=1", "-H", "authorization: Bearer \(clusterKey)", "-o", "/dev/null", "-w", "%{http_code}"]).stdout
        }
        for node in nodes { XCTAssertEqual(try status(node.1), "200", "the cluster's key works on every node") }
        XCTAssertFalse(FileManager.default.fileExists(atPath: data("k1") + "/keys.sqlite"), "a node on Redis keeps no keys.sqlite")
        let list = try ProcessRunner.pushlab(["relay", "keys", "list", "--queue", redis.url])
        XCTAssertTrue(list.stdout.contains(id) && list.stdout.contains("app:demo") && list.stdout.contains("cluster"), list.stdout)
        XCTAssertFalse(list.stdout.contains(clusterKey), "list never shows a key")
        XCTAssertFalse((try redis.cli(["HGETALL", "pushlab:apikeys"])).contains(clusterKey), "Redis holds hashes, not keys")
        // Each node remembers the key for 1 s after using it: use it on both, cut every node's
        // connections behind their backs (CLIENT KILL), then revoke — from the CLI, which returns
        // once no node can trust its memory. No node may accept the key after that: 401, or 503
        // while it reconnects, and 401 once it has.
        for node in nodes { XCTAssertEqual(try status(node.1), "200", "the key works right before the revoke") }
        _ = try redis.cli(["CLIENT", "KILL", "TYPE", "normal"])
        let revoked = try ProcessRunner.pushlab(["relay", "keys", "revoke", "--queue", redis.url, id])
        XCTAssertEqual(revoked.status, 0, revoked.stderr)
        for node in nodes {
            var seen: [String] = []
            XCTAssertTrue(try Poll.blocking(timeout: 30) {
                seen.append(try status(node.1))
                return seen.last == "401"
            }, "a revoke takes effect on every node; answers: \(seen)")
            XCTAssertTrue(seen.allSatisfy { $0 == "401" || $0 == "503" }, "never accepted after the revoke: \(seen)")
        }
        let again = try ProcessRunner.pushlab(["relay", "keys", "revoke", "--queue", redis.url, id])
        XCTAssertEqual(again.status, 2, again.stderr)
        XCTAssertTrue(again.stderr.contains("no active key with id \(id)"), again.stderr)
        let after = try ProcessRunner.pushlab(["relay", "keys", "list", "--queue", redis.url])
        XCTAssertTrue(after.stdout.contains("revoked"), after.stdout)
        let closed = try ClosedPort()
        let unreachable = try ProcessRunner.pushlab(["relay", "keys", "list", "--queue", "redis://127.0.0.1:\(closed.port)"])
        XCTAssertEqual(unreachable.status, 2, unreachable.stderr)
        XCTAssertTrue(unreachable.stderr.contains("API keys at redis://127.0.0.1:\(closed.port)/0"), unreachable.stderr)
        withExtendedLifetime(closed) {}
    }

    func testRedisRestartedMidRunLosesNothingAcknowledged() throws {
        let targets = 1_000
        let nodes = try ["n1", "n2", "n3"].map(startNode)
        let all = tokens(targets, base: 0xD1_0000)
        let id = try post(nodes[0].1, tokens: all)
        XCTAssertTrue(Poll.blocking(timeout: 60) { self.finishedTargets() >= targets / 4 }, "no progress:\n\(nodes[0].0.stderr)")
        try redis.restart()
        let atRestart = finishedTargets()
        XCTAssertLessThan(atRestart, targets, "the restart must land before the push finished")
        let done = try waitFinished(nodes[1].1, id)
        XCTAssertTrue(done.contains(#""sent":\#(targets)"#), done)
        XCTAssertEqual(try redis.cli(["HLEN", "pushlab:results:\(id)"]), String(targets))
        for node in nodes { node.0.stop(grace: 10) }
        let (accepted, tokenUpdates) = try emulatorRecords()
        let missing = Set(all).subtracting(accepted.keys)
        XCTAssertEqual(missing.count, 0, "every acknowledged target reached the emulator; missing e.g. \(missing.prefix(3))")
        let duplicates = accepted.values.reduce(0) { $0 + max(0, $1 - 1) }
        let writes = try resultWrites(all)
        XCTAssertEqual(writes.perToken.filter { $0.value != 1 }.count, 0, "each target's result written exactly once")
        XCTAssertEqual(writes.total, targets, "result writes in the delivery log")
        // While Redis is down, results of the sends in flight cannot be recorded: those are sent again.
        XCTAssertLessThanOrEqual(duplicates, 3 * 2 * concurrency)
        XCTAssertEqual(tokenUpdates, 0)
        print("relay cluster Redis restart test: 3 nodes, \(targets) targets, Redis restarted at \(atRestart) finished; duplicates sent: \(duplicates)")
    }
}

/// `--queue` and `--node` input errors: exit 2, the problem and the fix named, the URL's password never printed.
final class RelayQueueFlagTests: XCTestCase {
    func testBadQueueURLUnreachableRedisAndNodeWithoutQueueExitTwo() throws {
        let directory = Fixtures.temporaryDirectory("relay-queue-flags")
        defer { try? FileManager.default.removeItem(at: directory) }
        let config = directory.appendingPathComponent("relay.json").path
        try Data("""
            {"listen": {"port": 0}, "apps": {"demo": {"apns": {"key": "\(Fixtures.apnsKey)", "key_id": "\(Fixtures.apnsKeyID)",
              "team_id": "\(Fixtures.apnsTeamID)", "bundle_id": "\(Fixtures.bundleID)", "url": "https://127.0.0.1:2197", "ca_file": "\(Fixtures.caFile)"}}}}
            """.utf8).write(to: URL(fileURLWithPath: config))
        let data = directory.appendingPathComponent("data").path
        let scheme = try ProcessRunner.pushlab(["relay", "--config", config, "--data", data, "--queue", "http://127.0.0.1:6379", "--check"])
        XCTAssertEqual(scheme.status, 2, scheme.stderr)
        XCTAssertTrue(scheme.stderr.contains("--queue: 'http://127.0.0.1:6379' is not a Redis URL"), scheme.stderr)
        let closed = try ClosedPort()
        let port = closed.port
        let unreachable = try ProcessRunner.pushlab(["relay", "--config", config, "--data", data,
                                                     "--queue", "redis://:s3cret-pw@127.0.0.1:\(port)/0", "--check"])
        XCTAssertEqual(unreachable.status, 2, unreachable.stderr)
        XCTAssertTrue(unreachable.stderr.contains("cannot reach Redis at redis://:<redacted>@127.0.0.1:\(port)/0"), unreachable.stderr)
        XCTAssertFalse((unreachable.stdout + unreachable.stderr).contains("s3cret-pw"), "the password is never printed")
        let node = try ProcessRunner.pushlab(["relay", "--config", config, "--data", data, "--node", "a", "--check"])
        XCTAssertEqual(node.status, 2, node.stderr)
        XCTAssertTrue(node.stderr.contains("--node needs --queue"), node.stderr)
        let retention = try ProcessRunner.pushlab(["relay", "--config", config, "--data", data, "--retention", "1h", "--check"])
        XCTAssertEqual(retention.status, 2, retention.stderr)
        XCTAssertTrue(retention.stderr.contains("--retention needs --queue"), retention.stderr)
        withExtendedLifetime(closed) {}
    }
}

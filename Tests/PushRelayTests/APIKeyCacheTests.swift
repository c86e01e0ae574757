import Foundation
import PushRedis
import TestSupport
import XCTest
@testable import PushRelay

/// The API keys of a cluster as two nodes see them (`APIKeyStore` on Redis, each node with its
/// own client and its own memory of live keys), against a real redis-server and a real local
/// Redis Cluster: a key a node has just used is refused there at the next lookup after another
/// node's `revoke` returned — also when the node's connection was killed or Redis restarted in
/// between — and a warm node costs the shared Redis about one lookup per key per second, not
/// one per request. Counts of lookups come from Redis's own `INFO commandstats`.
final class APIKeyCacheTests: XCTestCase {
    private var server: RedisServer!

    override func setUpWithError() throws { server = try RedisServer() }
    override func tearDown() { server?.stop(); server = nil }

    /// A node's key store: its own connection, named (`CLIENT SETNAME`) so a test can kill it.
    private func node(_ name: String, url: String? = nil) throws -> (APIKeyStore, RedisClient) {
        let client = RedisClient(endpoint: try RedisEndpoint(url: url ?? server.url), options: RedisClientOptions(clientName: name))
        return (APIKeyStore(redis: client), client)
    }

    /// `cmdstat_hget` calls since the last `CONFIG RESETSTAT` on `redis`.
    /// 2,000 lookups of `key` (an app key of "demo") on `store`, with `redis`'s HGETs counted from
    /// zero: at least one, at most one per cache lifetime that passed (plus one). Returns the
    /// count and the lifetimes that passed.
    private func warmLookups(of key: String, on store: APIKeyStore, countedOn redis: RedisServer,
                             file: StaticString = #filePath, line: UInt = #line) async throws -> (Int, Double) {
        _ = try redis.cli(["CONFIG", "RESETSTAT"])
        let started = ContinuousClock.now
        for _ in 0..<2_000 {
            let scope = try await store.scope(ofKey: key)
            XCTAssertEqual(scope, .app("demo"), file: file, line: line)
        }
        let seconds = (ContinuousClock.now - started) / APIKeyStore.cacheLifetime
        let lookups = try hgets(redis)
        XCTAssertGreaterThanOrEqual(lookups, 1, file: file, line: line)
        XCTAssertLessThanOrEqual(Double(lookups), seconds.rounded(.up) + 1,
                                 "at most one lookup per lifetime (\(seconds) lifetimes passed)", file: file, line: line)
        return (lookups, seconds)
    }

    private func hgets(_ redis: RedisServer) throws -> Int {
        let stats = try redis.cli(["INFO", "commandstats"])
        guard let line = stats.split(whereSeparator: \.isNewline).first(where: { $0.hasPrefix("cmdstat_hget:") }) else { return 0 }
        let calls = line.split(separator: ",").first { $0.contains("calls=") && !$0.contains("_calls") }
        return Int(calls?.split(separator: "=").last ?? "") ?? -1
    }

    /// The scope a node gives `key` now, or nil when refused; a lookup that could not reach
    /// Redis (the node answers 503, never accepting) counts as refused, and the node is asked
    /// again until it answers (it reconnects after its backoff).
    private func answer(_ store: APIKeyStore, _ key: String) async throws -> APIKeyScope? {
        for _ in 0..<400 {
            do { return try await store.scope(ofKey: key) } catch { try await Task.sleep(for: .milliseconds(25)) }
        }
        XCTFail("the node never reached Redis again")
        return nil
    }

    /// Node B uses a key (its memory of it warm), node A revokes it: B's next lookup refuses it.
    /// (With `revoke` not waiting out the nodes' memory — `revokeWait` 0 — B accepted it: seen red.)
    func testARevokeOnOneNodeIsRefusedAtTheOtherNodesNextRequest() async throws {
        let (a, _) = try node("node-a"), (b, _) = try node("node-b")
        let made = try await a.create(scope: .app("demo"), label: "cache")
        for _ in 0..<3 { let scope = try await b.scope(ofKey: made.key); XCTAssertEqual(scope, .app("demo")) }
        XCTAssertEqual(b.cachedKeys, 1, "B remembers the key it just used")
        let revoked = try await a.revoke(id: made.info.id)
        XCTAssertTrue(revoked)
        let after = try await b.scope(ofKey: made.key)
        XCTAssertNil(after, "a revoke returned by A takes effect at B's next request")
        let onA = try await a.scope(ofKey: made.key)
        XCTAssertNil(onA)
        // Redis holds hashes only, and so does B's memory (it never held the key).
        XCTAssertFalse(try server.cli(["HGETALL", "pushlab:apikeys"]).contains(made.key))
    }

    /// B's connection is killed behind its back (`CLIENT KILL`), then A revokes: B has not yet
    /// noticed anything, and must still refuse the key at its next request. Then the same with
    /// Redis itself killed and restarted (AOF) before the revoke.
    func testAfterTheNodesConnectionIsKilledOrRedisRestartsARevokeIsStillRefused() async throws {
        let (a, _) = try node("node-a"), (b, _) = try node("node-b")
        let first = try await a.create(scope: .app("demo"), label: "kill")
        let warm = try await b.scope(ofKey: first.key)
        XCTAssertEqual(warm, .app("demo"))
        let line = try XCTUnwrap(try server.cli(["CLIENT", "LIST"]).split(whereSeparator: \.isNewline).first { $0.contains(" name=node-b ") })
        let id = try XCTUnwrap(line.split(separator: " ").first { $0.hasPrefix("id=") }?.dropFirst(3))
        XCTAssertEqual(try server.cli(["CLIENT", "KILL", "ID", String(id)]), "1", "B's connection killed")
        var revoked = try await a.revoke(id: first.info.id)
        XCTAssertTrue(revoked)
        let afterKill = try await answer(b, first.key)
        XCTAssertNil(afterKill, "a node whose connection was killed refuses a key revoked meanwhile")

        let second = try await a.create(scope: .app("demo"), label: "restart")
        let warmAgain = try await answer(b, second.key)
        XCTAssertEqual(warmAgain, .app("demo"))
        server.crash()
        try server.restart()
        revoked = false
        for _ in 0..<400 where !revoked {
            do { revoked = try await a.revoke(id: second.info.id) } catch { try await Task.sleep(for: .milliseconds(25)) }
        }
        XCTAssertTrue(revoked, "the key, written with appendfsync always, is back after the restart and revoked")
        let afterRestart = try await answer(b, second.key)
        XCTAssertNil(afterRestart, "a node whose Redis restarted refuses a key revoked after the restart")
    }

    /// Once a node's Redis client has lost a connection, the node no longer trusts what it
    /// remembers: with Redis down, a key it used a moment ago is not accepted from memory, the
    /// lookup fails (the API answers 503, never 401 and never 202 on a key nobody can check).
    /// (With the trouble count not compared, B answered the key's scope from memory: seen red.)
    func testAfterItsRedisConnectionFailedANodeChecksTheKeyWithRedisAgain() async throws {
        let (b, client) = try node("node-b")
        let made = try await b.create(scope: .admin, label: "outage")
        let warm = try await b.scope(ofKey: made.key)
        XCTAssertEqual(warm, .admin)
        server.crash()
        do {
            _ = try await client.execute(RedisCommand("PING"))
            XCTFail("PING on a crashed Redis must fail")
        } catch {}
        do {
            let scope = try await b.scope(ofKey: made.key)
            XCTFail("the node answered \(String(describing: scope)) from memory after losing Redis")
        } catch {
            XCTAssertEqual(error.store, .redis)
        }
        try server.restart()
        let back = try await answer(b, made.key)
        XCTAssertEqual(back, .admin, "the key (appendfsync always) works again once Redis is back")
    }

    /// 2,000 requests with one key on a warm node cost Redis about one `HGET` per second the
    /// loop took (the memory's lifetime), not 2,000; unknown keys are never remembered, so each
    /// costs its lookup. (With the memory off — every lookup sent — 2,000: seen red.)
    func testAWarmNodeCostsRedisAboutOneLookupPerKeyPerSecond() async throws {
        let (b, _) = try node("node-b")
        let made = try await b.create(scope: .app("demo"), label: "warm")
        let (lookups, seconds) = try await warmLookups(of: made.key, on: b, countedOn: server)
        _ = try server.cli(["CONFIG", "RESETSTAT"])
        let unknown = APIKeyStore.prefix + String(repeating: "Q", count: 40)
        for _ in 0..<10 { let scope = try await b.scope(ofKey: unknown); XCTAssertNil(scope) }
        XCTAssertEqual(try hgets(server), 10, "an unknown key is looked up every time")
        print("api key cache: 2,000 lookups of one key in \(seconds) s cost Redis \(lookups) HGET")
    }

    /// 64 requests at once with a key the node does not remember (a cold node, or the moment its
    /// entry ran out under load) cost one `HGET`: one asks Redis, the others wait for its answer.
    /// (With each request asking on its own: 64 at once sent many — seen red.)
    func testManyRequestsAtOnceWithAKeyNotRememberedCostOneLookup() async throws {
        let (a, _) = try node("node-a"), (b, _) = try node("node-b")
        let made = try await a.create(scope: .app("demo"), label: "herd")
        _ = try server.cli(["CONFIG", "RESETSTAT"])
        let started = ContinuousClock.now
        let scopes = try await withThrowingTaskGroup(of: APIKeyScope?.self) { group in
            for _ in 0..<64 { group.addTask { try await b.scope(ofKey: made.key) } }
            return try await group.reduce(into: [APIKeyScope?]()) { $0.append($1) }
        }
        let seconds = (ContinuousClock.now - started) / APIKeyStore.cacheLifetime
        XCTAssertEqual(scopes.count, 64)
        XCTAssertTrue(scopes.allSatisfy { $0 == .app("demo") }, "\(scopes)")
        let lookups = try hgets(server)
        XCTAssertGreaterThanOrEqual(lookups, 1)
        XCTAssertLessThanOrEqual(Double(lookups), seconds.rounded(.up), "one lookup per lifetime (\(seconds) lifetimes passed)")
        print("api key cache: 64 requests at once on a cold node cost Redis \(lookups) HGET")
    }

    /// On a real 3-master Redis Cluster (the keys under `{pushlab}`, on one master): a warm node
    /// sends that master about one lookup per second for 2,000 requests, and a revoke from
    /// another node is refused at its next request.
    func testOnARedisClusterTheSharedMasterSeesAboutNoLookupsAndARevokeIsRefused() async throws {
        let cluster = try RedisClusterServers()
        defer { cluster.stop() }
        let prefix = RedisQueueLane.sharedPrefix("pushlab")
        func clusterNode() throws -> APIKeyStore {
            APIKeyStore(redis: RedisClient(cluster: try RedisClusterEndpoint(url: cluster.url)), prefix: prefix)
        }
        let a = try clusterNode(), b = try clusterNode()
        let made = try await a.create(scope: .app("demo"), label: "cluster")
        let shared = try cluster.master(ofSlot: RedisHashSlot.slot(of: prefix + ":apikeys"))
        let (lookups, seconds) = try await warmLookups(of: made.key, on: b, countedOn: shared)
        let revoked = try await a.revoke(id: made.info.id)
        XCTAssertTrue(revoked)
        let after = try await b.scope(ofKey: made.key)
        XCTAssertNil(after, "a revoke returned by A takes effect at B's next request")
        print("api key cache, cluster: 2,000 lookups in \(seconds) s cost the {pushlab} master \(lookups) HGET")
    }
}

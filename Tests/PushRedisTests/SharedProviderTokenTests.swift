import Foundation
import PushAuth
import PushCore
import PushRedis
import TestSupport
import XCTest

/// One provider token per (team, key) across nodes, against a real redis-server.
final class SharedProviderTokenTests: XCTestCase {
    private var server: RedisServer!
    private var key: APNsAuthKey!
    private let clock = ManualTimeSource()

    override func setUpWithError() throws {
        server = try RedisServer()
        key = try APNsAuthKey.load(path: Fixtures.apnsKey, keyID: Fixtures.apnsKeyID, teamID: Fixtures.apnsTeamID)
    }

    override func tearDown() { server?.stop(); server = nil }

    private func nodes(_ count: Int) throws -> [SharedProviderToken] {
        try (0..<count).map { _ in
            SharedProviderToken(key: key, client: RedisClient(endpoint: try RedisEndpoint(url: server.url)), timeSource: clock)
        }
    }

    private func tokens(_ nodes: [SharedProviderToken]) async throws -> Set<String> {
        try await withThrowingTaskGroup(of: String.self) { group in
            for node in nodes { group.addTask { try await node.currentToken() } }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
    }

    func testThreeNodesShareOneToken() async throws {
        let cluster = try nodes(3)
        let first = try await tokens(cluster)
        XCTAssertEqual(first.count, 1, "every node uses the same token")
        let stored = try server.cli(["GET", "pushlab:apns-token:\(Fixtures.apnsTeamID):\(Fixtures.apnsKeyID)"])
        XCTAssertTrue(stored.hasSuffix(first.first!), "the token in Redis is the one in use")
        let ttl = Int(try server.cli(["TTL", "pushlab:apns-token:\(Fixtures.apnsTeamID):\(Fixtures.apnsKeyID)"])) ?? -1
        XCTAssertGreaterThan(ttl, 0)
        XCTAssertLessThanOrEqual(ttl, 50 * 60)
    }

    /// A node's workers all need a token at its first sends: 64 of them at once make one request
    /// to Redis (one run of the install script), not one each — on a Redis Cluster every such
    /// request lands on the one master of `{pushlab}`. The 64 get the one token.
    func testManyWorkersNeedingATokenAtOnceMakeOneRequestToRedis() async throws {
        let node = try nodes(1)[0]
        _ = try server.cli(["CONFIG", "RESETSTAT"])
        let got = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<64 { group.addTask { try await node.currentToken() } }
            return try await group.reduce(into: [String]()) { $0.append($1) }
        }
        XCTAssertEqual(got.count, 64)
        XCTAssertEqual(Set(got).count, 1, "every worker got the one token")
        let stats = try server.cli(["INFO", "commandstats"])
        XCTAssertEqual(try server.scriptRuns(), 1, "one install script for 64 workers:\n\(stats)")
        // Due again after 51 minutes: again one request for all of them.
        clock.advance(by: 51 * 60)
        _ = try server.cli(["CONFIG", "RESETSTAT"])
        let later = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<64 { group.addTask { try await node.currentToken() } }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        XCTAssertEqual(later.count, 1)
        XCTAssertNotEqual(later, Set(got), "a new token after 51 minutes")
        let laterStats = try server.cli(["INFO", "commandstats"])
        XCTAssertEqual(try server.scriptRuns(), 1, "one install script for the refresh:\n\(laterStats)")
    }

    func testTokenChangesOnceForTheClusterAfterFiftyMinutesAndNotBefore() async throws {
        let cluster = try nodes(3)
        let first = try await tokens(cluster)
        clock.advance(by: 30 * 60)
        let later = try await tokens(cluster)
        XCTAssertEqual(later, first, "30 minutes in: still the first token")
        clock.advance(by: 21 * 60)
        let refreshed = try await tokens(cluster)
        XCTAssertEqual(refreshed.count, 1, "after 51 minutes every node moved to one new token")
        XCTAssertNotEqual(refreshed, first)
    }

    func testTokenVerifiesWithTheKeysPublicKey() async throws {
        let jwt = try await nodes(1)[0].currentToken()
        let header = try JSONSerialization.jsonObject(with: Data(XCTUnwrap(Base64URL.decode(jwt.split(separator: ".")[0])))) as? [String: Any]
        XCTAssertEqual(header?["kid"] as? String, Fixtures.apnsKeyID)
    }

    func testRejectedYoungTokenIsNotReplacedInsideTheTwentyMinuteFloor() async throws {
        let node = try nodes(1)[0]
        let jwt = try await node.currentToken()
        clock.advance(by: 5 * 60)
        let renewed = await node.renew(afterRejecting: "bearer \(jwt)")
        XCTAssertFalse(renewed)
        let again = try await node.currentToken()
        XCTAssertEqual(again, jwt)
    }

    func testRejectedTokenPastTheFloorIsReplacedOnceForEveryNode() async throws {
        let cluster = try nodes(2)
        let old = try await tokens(cluster).first!
        clock.advance(by: 25 * 60)
        let firstRenewed = await cluster[0].renew(afterRejecting: "bearer \(old)")
        XCTAssertTrue(firstRenewed)
        let new = try await cluster[0].currentToken()
        XCTAssertNotEqual(new, old)
        let secondRenewed = await cluster[1].renew(afterRejecting: "bearer \(old)")
        XCTAssertTrue(secondRenewed)
        let adopted = try await cluster[1].currentToken()
        XCTAssertEqual(adopted, new, "the second node adopts the first node's replacement instead of signing its own")
    }

    /// A node whose first token fell in a Redis outage signs its own; once Redis is back it
    /// adopts the cluster's token (another node's, installed meanwhile) rather than keeping its
    /// own for up to 55 minutes (each send with it a token update for the team).
    func testANodeThatSignedItsOwnDuringAnOutageAdoptsTheClustersTokenWhenRedisIsBack() async throws {
        let pair = try nodes(2)
        let (a, b) = (pair[0], pair[1])
        server.stop()
        let own = try await a.currentToken()
        try server.restart()
        let shared = try await b.currentToken()
        XCTAssertNotEqual(own, shared, "b could not see a's token: Redis never had it")
        var adopted = own
        let ok = try await Poll.until(timeout: 20) {
            clock.advance(by: SharedProviderToken.retryShared + 1)
            adopted = try await a.currentToken()
            return adopted == shared
        }
        XCTAssertTrue(ok, "a kept its own token after Redis came back")
        let again = try await a.currentToken()
        XCTAssertEqual(again, shared)
    }

    /// A Redis that answers with an error rather than not at all (`-LOADING` while a restarted
    /// one reads its data back; here `-WRONGTYPE`, the key holding a list) still leaves the node
    /// a token of its own: a thrown error failed every send waiting for the token for good.
    /// Red with only connection failures falling back (the error reaches the caller).
    func testAnErrorAnswerFromRedisKeepsSendingWithTheNodesOwnToken() async throws {
        let node = try nodes(1)[0]
        _ = try server.cli(["RPUSH", "pushlab:apns-token:\(Fixtures.apnsTeamID):\(Fixtures.apnsKeyID)", "not a token"])
        let own = try await node.currentToken()
        XCTAssertNoThrow(try JWT.parse(own), own)
        let fallbacks = await node.localFallbacks
        XCTAssertEqual(fallbacks, 1)
        // Once Redis answers again (the key cleared), the node installs and adopts the shared token.
        _ = try server.cli(["DEL", "pushlab:apns-token:\(Fixtures.apnsTeamID):\(Fixtures.apnsKeyID)"])
        clock.advance(by: SharedProviderToken.retryShared + 1)
        let shared = try await node.currentToken()
        let stored = try server.cli(["GET", "pushlab:apns-token:\(Fixtures.apnsTeamID):\(Fixtures.apnsKeyID)"])
        XCTAssertTrue(stored.hasSuffix(shared), "the node's token went to Redis once it answered")
    }

    func testRedisDownKeepsSendingWithTheNodesOwnToken() async throws {
        let node = try nodes(1)[0]
        let jwt = try await node.currentToken()
        server.stop()
        clock.advance(by: 51 * 60)
        let fallback = try await node.currentToken()
        XCTAssertEqual(fallback, jwt, "under 55 minutes the node keeps the token it has")
        clock.advance(by: 5 * 60)
        let own = try await node.currentToken()
        XCTAssertNotEqual(own, jwt)
        let fallbacks = await node.localFallbacks
        XCTAssertEqual(fallbacks, 2)
    }
}

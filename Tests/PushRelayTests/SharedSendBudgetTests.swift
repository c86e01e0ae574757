import Foundation
import PushHTTP
import PushRedis
import TestSupport
import XCTest
@testable import PushRelay

/// A node's share of an app's send budget on Redis (`SharedSendBudget`), against a real
/// redis-server. The buckets never refill (burst = limit), so every count is exact whatever the
/// time the test takes.
final class SharedSendBudgetTests: XCTestCase {
    private var server: RedisServer!

    override func setUpWithError() throws { server = try RedisServer() }
    override func tearDown() { server?.stop(); server = nil }

    private func node(limit: Int, key: String = "pushlab:budget:app:demo") throws -> SharedSendBudget {
        let client = RedisClient(endpoint: try RedisEndpoint(url: server.url))
        return SharedSendBudget(budget: RedisRateBudget(client: client, key: key,
                                                        budget: PushRedis.RateBudget(limit: limit, per: .seconds(1_000_000), burst: limit)),
                                fallback: PushRelay.RateBudget(perMinute: limit), log: { _ in })
    }

    /// Starts `count` takes at once on `budget`; returns the counter of those that completed.
    private func takeAtOnce(_ count: Int, from budget: SharedSendBudget) -> SanitizerVisibleMutex<Int> {
        let done = SanitizerVisibleMutex(0)
        for _ in 0..<count {
            Task {
                await budget.take()
                done.withLock { $0 += 1 }
            }
        }
        return done
    }

    private func tokensLeft(_ key: String = "pushlab:budget:app:demo") throws -> Double {
        try XCTUnwrap(Double(try server.cli(["HGET", key, "tokens"])), "the bucket's tokens")
    }

    /// 64 workers that find the node's tokens spent at the same moment ask Redis for one lease
    /// (a tenth of the bucket, at most 1,024), not one each: one script call, one lease taken
    /// from the bucket. (Before, each asked: 64 calls, and the node held 64 leases.)
    func testWorkersFindingTheTokensSpentAskRedisForOneLease() async throws {
        let budget = try node(limit: 6_000)
        XCTAssertEqual(budget.lease, 600)
        _ = try server.cli(["CONFIG", "RESETSTAT"])
        let first = takeAtOnce(64, from: budget)
        let firstDone = await Poll.until { first.withLock { $0 } == 64 }
        XCTAssertTrue(firstDone, "64 takes done: \(first.withLock { $0 })")
        XCTAssertEqual(try server.scriptRuns(), 1, "one lease request for 64 workers")
        XCTAssertEqual(try tokensLeft(), 5_400, "one lease of 600 taken from the bucket")
        // Spend the rest of the lease, then 64 at once again: one more lease.
        for _ in 0..<(600 - 64) { await budget.take() }
        XCTAssertEqual(try server.scriptRuns(), 1, "the lease's 600 sends took no more Redis calls")
        let second = takeAtOnce(64, from: budget)
        let secondDone = await Poll.until { second.withLock { $0 } == 64 }
        XCTAssertTrue(secondDone)
        XCTAssertEqual(try server.scriptRuns(), 2)
        XCTAssertEqual(try tokensLeft(), 4_800)
    }

    /// Three nodes on one bucket of 100 (leases of 10), 30 workers each taking one send: each node
    /// takes exactly three leases, so 90 of the bucket's 100 tokens are taken and 10 are left
    /// for whoever asks next; nothing is taken twice or past the bucket.
    func testNodesTakeOnlyTheLeasesTheirSendsNeed() async throws {
        let nodes = try (0..<3).map { _ in try node(limit: 100) }
        XCTAssertEqual(nodes[0].lease, 10)
        let counters = nodes.map { takeAtOnce(30, from: $0) }
        let done = await Poll.until { counters.allSatisfy { c in c.withLock { $0 } == 30 } }
        XCTAssertTrue(done, "sends taken per node: \(counters.map { c in c.withLock { $0 } })")
        XCTAssertEqual(try tokensLeft(), 10, "three leases of 10 per node")
        // The last 10: one more node's worth; the node after that finds the bucket empty.
        let fourth = try node(limit: 100)
        let last = takeAtOnce(10, from: fourth)
        let lastDone = await Poll.until { last.withLock { $0 } == 10 }
        XCTAssertTrue(lastDone)
        XCTAssertEqual(try tokensLeft(), 0)
    }
}

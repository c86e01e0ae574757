import PushRedis
import TestSupport
import XCTest

/// The Lua token bucket shared by several nodes, against a real redis-server. The budgets
/// refill so slowly (one token per hours) that the counts do not depend on how long the test takes.
final class RateBudgetTests: XCTestCase {
    private var server: RedisServer!

    override func setUpWithError() throws { server = try RedisServer() }
    override func tearDown() { server?.stop(); server = nil }

    private func node() throws -> RedisClient { RedisClient(endpoint: try RedisEndpoint(url: server.url)) }

    func testTakeGrantsWhatTheBucketHoldsAndSaysWhenTheRestRefills() async throws {
        let budget = RedisRateBudget(client: try node(), key: "budget:app",
                                     budget: RateBudget(limit: 10, per: .seconds(100_000), burst: 5))
        var grant = try await budget.take(3)
        XCTAssertEqual(grant.granted, 3)
        XCTAssertEqual(grant.retryAfter, .zero)
        grant = try await budget.take(3)
        XCTAssertEqual(grant.granted, 2, "only two were left")
        XCTAssertGreaterThan(grant.retryAfter, .zero)
        grant = try await budget.take(1)
        XCTAssertEqual(grant.granted, 0)
    }

    func testNodesTogetherNeverSpendMoreThanTheBudget() async throws {
        let budget = RateBudget(limit: 100, per: .seconds(1_000_000), burst: 40)
        let granted = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<4 {
                let bucket = RedisRateBudget(client: try node(), key: "budget:project", budget: budget)
                group.addTask {
                    var total = 0
                    for _ in 0..<25 { total += try await bucket.take(1).granted }
                    return total
                }
            }
            return try await group.reduce(0, +)
        }
        XCTAssertEqual(granted, 40, "100 requests from 4 nodes share one bucket of 40")
    }

    func testFCMProjectBudgetNeverGrantsMoreThan600kPerMinute() {
        let budget = RateBudget.fcmProject
        // Full bucket plus one window of refill is the most any 60-second span can grant.
        let refillPerWindow = (Double(budget.limit - budget.burst) / 60_000) * 60_000
        XCTAssertLessThanOrEqual(Double(budget.burst) + refillPerWindow, 600_000)
        XCTAssertEqual(budget.burst, 10_000)
    }

    func testBucketExpiresWhenIdle() async throws {
        let client = try node()
        let budget = RedisRateBudget(client: client, key: "budget:idle", budget: RateBudget(limit: 10, per: .seconds(10), burst: 5))
        _ = try await budget.take(1)
        let ttl = try await client.execute(RedisCommand("PTTL", "budget:idle")).integer ?? -2
        XCTAssertGreaterThan(ttl, 0, "an unused bucket must not stay in Redis forever")
    }
}

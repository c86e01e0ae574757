import Foundation
import PushRedis
import TestSupport
import XCTest

/// The Streams side of the Redis queue with several nodes, against a real redis-server.
final class RedisWorkStreamTests: XCTestCase {
    private var server: RedisServer!

    override func setUpWithError() throws { server = try RedisServer() }
    override func tearDown() { server?.stop(); server = nil }

    private func node(_ name: String, _ configuration: RedisWorkStreamConfiguration = .init()) async throws -> RedisWorkStream {
        let endpoint = try RedisEndpoint(url: server.url)
        let stream = RedisWorkStream(client: RedisClient(endpoint: endpoint), reader: RedisClient(endpoint: endpoint),
                                     consumer: name, configuration: configuration)
        try await stream.prepare()
        return stream
    }

    private func chunks(_ count: Int) -> [[(String, String)]] {
        (0..<count).map { [("push", "p1"), ("chunk", String($0)), ("targets", "t\($0)a,t\($0)b")] }
    }

    /// gorush #834/#850: with several pods every pod sent every notification.
    func testSeveralNodesNeverReadOneEntryTwice() async throws {
        let writer = try await node("writer")
        try await writer.add(chunks(300))
        let nodes = [try await node("a"), try await node("b"), try await node("c")]
        let seen = try await withThrowingTaskGroup(of: [String].self) { group in
            for node in nodes {
                group.addTask {
                    var ids: [String] = []
                    while true {
                        let items = try await node.next(count: 7)
                        if items.isEmpty { return ids }
                        ids += items.map(\.entry.id)
                        try await node.acknowledge(items)
                    }
                }
            }
            return try await group.reduce(into: [String]()) { $0 += $1 }
        }
        XCTAssertEqual(seen.count, 300, "every entry read once")
        XCTAssertEqual(Set(seen).count, 300, "no entry read twice")
        XCTAssertEqual(try server.cli(["XPENDING", "pushlab:work", "pushlab:relay"]).split(separator: "\n").first, "0")
    }

    /// gorush #693: an idle Redis queue stopped feeding its workers.
    func testIdleNodeWaitingForWorkGetsANewEntry() async throws {
        var configuration = RedisWorkStreamConfiguration()
        configuration.readBlock = .seconds(20)
        let idle = try await node("idle", configuration)
        let waiting = Task { try await idle.next(count: 10) }
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline, !(try server.cli(["INFO", "clients"]).contains("blocked_clients:1")) {
            try await Task.sleep(for: .milliseconds(5))
        }
        let ids = try await node("api").add(chunks(1))
        let items = try await waiting.value
        XCTAssertEqual(items.map(\.entry.id), ids)
    }

    func testTakenOverEntrySkipsTargetsAnsweredAndWaitsForLiveClaims() async throws {
        var configuration = RedisWorkStreamConfiguration()
        configuration.claimDeadline = .milliseconds(1)
        configuration.readBlock = .milliseconds(10)
        let dying = try await node("dying", configuration)
        let survivor = try await node("survivor", configuration)
        try await dying.add(chunks(1))
        let held = try await dying.next(count: 1)
        XCTAssertEqual(held.count, 1)
        let answered = try await dying.claimTarget(push: "p1", target: "t0a", lease: .seconds(60))
        XCTAssertEqual(answered, .claimed)
        try await dying.markDone(push: "p1", targets: ["t0a"])
        let inFlight = try await dying.claimTarget(push: "p1", target: "t0b", lease: .seconds(60))
        XCTAssertEqual(inFlight, .claimed)
        // The node dies here: no XACK. The survivor takes the entry over once it is idle.
        var taken: [RedisWorkItem] = []
        let deadline = Date().addingTimeInterval(10)
        while taken.isEmpty && Date() < deadline { taken = try await survivor.next(count: 1) }
        XCTAssertEqual(taken.map(\.entry.id), held.map(\.entry.id))
        XCTAssertEqual(taken.first?.deliveries, 2)
        let first = try await survivor.claimTarget(push: "p1", target: "t0a", lease: .seconds(60))
        XCTAssertEqual(first, .alreadyDone, "answered before the crash: not sent again")
        let second = try await survivor.claimTarget(push: "p1", target: "t0b", lease: .seconds(60))
        XCTAssertEqual(second, .heldBy("dying"), "its lease still runs")
        try server.cli(["DEL", "pushlab:target:p1:t0b"])  // the lease runs out
        let third = try await survivor.claimTarget(push: "p1", target: "t0b", lease: .seconds(60))
        XCTAssertEqual(third, .claimed)
    }

    func testEntryPastMaxDeliveriesGoesToTheDeadLetterStream() async throws {
        var configuration = RedisWorkStreamConfiguration()
        configuration.claimDeadline = .milliseconds(1)
        configuration.readBlock = .milliseconds(10)
        configuration.maxDeliveries = 2
        let nodes = [try await node("a", configuration), try await node("b", configuration), try await node("c", configuration)]
        let ids = try await nodes[0].add(chunks(1))
        var deliveries: [Int] = []
        for node in nodes {
            let deadline = Date().addingTimeInterval(10)
            while Date() < deadline {
                let items = try await node.next(count: 1)
                if !items.isEmpty { deliveries += items.map(\.deliveries); break }
                if try await !node.deadLetters().isEmpty { break }
            }
        }
        XCTAssertEqual(deliveries, [1, 2], "read, taken over once, then dead")
        let dead = try await nodes[2].deadLetters()
        XCTAssertEqual(dead.map { $0["source-id"] }, ids)
        XCTAssertEqual(dead.first?["deliveries"], "3")
        XCTAssertEqual(dead.first?["targets"], "t0a,t0b")
        XCTAssertEqual(try server.cli(["XPENDING", "pushlab:work", "pushlab:relay"]).split(separator: "\n").first, "0")
    }

    func testWorkAddedBeforeARedisRestartIsStillThere() async throws {
        var configuration = RedisWorkStreamConfiguration()
        configuration.readBlock = .milliseconds(10)
        let api = try await node("api", configuration)
        let ids = try await api.add(chunks(5))
        try server.restart()
        let worker = try await node("worker", configuration)
        var read: [String] = []
        let deadline = Date().addingTimeInterval(20)
        while read.count < 5 && Date() < deadline {
            var batch: [RedisWorkItem] = []
            if let error = await redisError({ batch = try await worker.next(count: 10) }) {
                XCTAssertTrue(error.isConnectionFailure, "\(error)")
                continue
            }
            read += batch.map(\.entry.id)
        }
        XCTAssertEqual(read, ids, "appendfsync always: everything XADD acknowledged survives the restart")
    }
}

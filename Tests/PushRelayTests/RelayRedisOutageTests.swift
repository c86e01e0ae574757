import Foundation
import TestSupport
import XCTest

/// Redis killed with `kill -9` and restarted (on its port, with its AOF) under running
/// `pushlab relay` nodes, again and again: every node stays alive, every accepted target gets
/// exactly one final result, duplicates stay within docs/relay.md's bound. Issue 43: a lost
/// `XREAD … BLOCK` freed the hiredis context and then restored its timeout, corrupting the heap
/// (the idle node died within a few restarts). `make sanitize` runs these under ASan, nodes
/// included (`PUSHLAB_TEST_BINARY`).
final class RelayRedisOutageTests: XCTestCase {
    private var cluster: RelayClusterFixture!
    private let restarts = 10

    override func setUpWithError() throws {
        cluster = try RelayClusterFixture(name: "relay-outage")
    }

    override func tearDown() {
        cluster?.stop()
    }

    /// `CLIENT LIST` lines of clients blocked in a command (`flags=b`), by client name.
    private func blockedClients() -> Set<String> {
        let list = (try? cluster.redis.cli(["CLIENT", "LIST"])) ?? ""
        return Set(list.split(separator: "\n").compactMap { line -> String? in
            let fields = line.split(separator: " ")
            guard fields.contains("flags=b"), let name = fields.first(where: { $0.hasPrefix("name=") }) else { return nil }
            return String(name.dropFirst(5))
        })
    }

    /// kill -9 Redis and start it again on its port at once (it reads its AOF back).
    private func crashAndRestartRedis() throws {
        cluster.redis.crash()
        try cluster.redis.restart()
    }

    /// Every node still running, and none printed a sanitizer report.
    private func assertAlive(_ nodes: [(process: ServerProcess, url: String)], _ context: String, file: StaticString = #filePath, line: UInt = #line) {
        for (index, node) in nodes.enumerated() {
            XCTAssertTrue(node.process.process.isRunning,
                          "node \(index + 1) died \(context) (exit \(node.process.exitStatus)):\n\(node.process.stderr.suffix(6000))", file: file, line: line)
            XCTAssertFalse(node.process.stderr.contains("Sanitizer"), "node \(index + 1) \(context):\n\(node.process.stderr.suffix(6000))", file: file, line: line)
        }
    }

    /// The issue's reproduction: one idle node, Redis killed while the node's reader is blocked
    /// in `XREAD … BLOCK` (so the read is the call that fails), 10 times. Then the node still
    /// takes and sends a push.
    func testIdleNodeSurvivesTenRedisRestartsDuringItsBlockingRead() throws {
        let node = try cluster.startNode("n1", quiet: false)
        for round in 1...restarts {
            XCTAssertTrue(Poll.blocking(timeout: 30) { self.blockedClients().contains("n1-reader") },
                          "round \(round): the node's reader never blocked again:\n\(node.process.stderr.suffix(3000))")
            try crashAndRestartRedis()
            assertAlive([node], "after Redis restart \(round)")
            if !node.process.process.isRunning { return }
        }
        XCTAssertTrue(Poll.blocking(timeout: 30) { self.blockedClients().contains("n1-reader") }, "the node's reader never came back")
        let tokens = cluster.tokens(5, base: 0xE1_0000)
        let id = try cluster.post(node.url, tokens: tokens)
        let done = try cluster.waitFinished(node.url, id)
        XCTAssertTrue(done.contains(#""sent":5"#), done)
        assertAlive([node], "after \(restarts) Redis restarts and a push")
        XCTAssertEqual(node.process.stop(grace: 20).contains("Sanitizer"), false)
        XCTAssertEqual(node.process.exitStatus, 0, node.process.stderr.suffix(3000).description)
    }
}

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

    /// The cluster of one test (`concurrency` sends in flight per node).
    private func makeCluster(concurrency: Int = 16, ratePerMinute: Int = 30_000) throws -> RelayClusterFixture {
        cluster = try RelayClusterFixture(name: "relay-outage", concurrency: concurrency, ratePerMinute: ratePerMinute)
        return cluster
    }

    override func tearDown() {
        cluster?.stop()
    }

    /// `CLIENT LIST` lines of clients blocked in a command (`flags=b`), by client name.
    private func blockedClients() -> Set<String> {
        let list = (try? cluster?.redis.cli(["CLIENT", "LIST"])) ?? ""
        return Set(list.split(separator: "\n").compactMap { line -> String? in
            let fields = line.split(separator: " ")
            guard fields.contains("flags=b"), let name = fields.first(where: { $0.hasPrefix("name=") }) else { return nil }
            return String(name.dropFirst(5))
        })
    }

    /// kill -9 Redis and start it again on its port at once (it reads its AOF back).
    private func crashAndRestartRedis() throws {
        let cluster = try XCTUnwrap(self.cluster)
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
        let cluster = try makeCluster()
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

    /// One answer as curl saw it (an independent client): status, headers (lower-cased names), body.
    private struct Answer {
        var status: Int
        var headers: [String: String]
        var body: String
    }

    private func call(_ method: String, _ url: String, key: String, bodyFile: String? = nil, headers: [String] = []) throws -> Answer {
        let dump = cluster.directory.appendingPathComponent("headers-\(UUID().uuidString)").path
        var args = ["-X", method, url, "-D", dump, "-w", "\n%{http_code}"] + (key.isEmpty ? [] : ["-H", "authorization: Bearer \(key)"])
            + headers.flatMap { ["-H", $0] }
        if let bodyFile { args += ["-H", "content-type: application/json", "--data-binary", "@" + bodyFile] }
        let r = try cluster.curl(args, maxTime: 30)
        XCTAssertEqual(r.status, 0, "curl: \(r.stderr)")
        let text = (try? String(contentsOfFile: dump, encoding: .utf8)) ?? ""
        var fields: [String: String] = [:]
        for line in text.split(separator: "\r\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let status = Int(r.stdout.split(separator: "\n").last ?? "") ?? 0
        return Answer(status: status, headers: fields, body: String(r.stdout.split(separator: "\n").dropLast().joined(separator: "\n")))
    }

    /// An outage as a client sees it. Before: 202. Redis down: every request that needs its key
    /// checked answers 503 `redis_unavailable` with `Retry-After` — for a good key and an
    /// unknown one alike (the node cannot tell them apart), never 401, without Redis's
    /// address; a malformed key is still 401 (no lookup needed). Redis back: 503 until the node
    /// has reconnected, then 202 again, and the pushes accepted before and after finish.
    func testDuringAnOutageKeyChecksAnswer503WithRetryAfterNever401() throws {
        let cluster = try makeCluster()
        let node = try cluster.startNode("n1", quiet: false)
        let pushes = cluster.directory.appendingPathComponent("outage-push.json").path
        try Data(#"{"apns": {"payload": {"aps": {"alert": "outage"}}}, "apns_tokens": ["\#(cluster.tokens(1, base: 0xE3_0000)[0])"]}"#.utf8)
            .write(to: URL(fileURLWithPath: pushes))
        let before = try call("POST", node.url + "/v1/apps/demo/pushes", key: cluster.key, bodyFile: pushes, headers: ["idempotency-key: before"])
        XCTAssertEqual(before.status, 202, before.body)
        let firstID = try XCTUnwrap(RelayClusterFixture.pushID(before.body))

        cluster.redis.crash()
        let unknownKey = "plk_" + String(repeating: "Z", count: 40)
        for (what, key) in [("the app's key", cluster.key), ("an unknown key", unknownKey)] {
            for (method, path, body) in [("POST", "/v1/apps/demo/pushes", pushes as String?), ("GET", "/v1/pushes/\(firstID)", nil)] {
                let answer = try call(method, node.url + path, key: key, bodyFile: body)
                XCTAssertEqual(answer.status, 503, "\(method) \(path) with \(what) while Redis is down: \(answer.body)")
                XCTAssertEqual(answer.headers["retry-after"], "2", "\(method) \(path): \(answer.headers)")
                XCTAssertTrue(answer.body.contains(#""error":"redis_unavailable""#), answer.body)
                XCTAssertFalse(answer.body.contains("unknown or revoked"), answer.body)
                XCTAssertFalse(answer.body.contains("127.0.0.1"), "the answer does not name Redis's address: \(answer.body)")
            }
        }
        // gorush clients that put the key in the path: the same 503 (in gorush's error shape).
        let gorush = try call("GET", node.url + "/gorush/demo/key/\(cluster.key)/healthz", key: "")
        XCTAssertEqual(gorush.status, 503, gorush.body)
        XCTAssertEqual(gorush.headers["retry-after"], "2", "\(gorush.headers)")
        XCTAssertTrue(gorush.body.contains(#""error":"redis_unavailable""#) && gorush.body.contains(#""code":503"#), gorush.body)
        let malformed = try call("POST", node.url + "/v1/apps/demo/pushes", key: "not-a-key", bodyFile: pushes)
        XCTAssertEqual(malformed.status, 401, "a key that cannot be one needs no lookup: \(malformed.body)")

        try cluster.redis.restart()
        var seen: [Int] = []
        var afterID: String?
        XCTAssertTrue(Poll.blocking(timeout: 30) {
            guard let answer = try? self.call("POST", node.url + "/v1/apps/demo/pushes", key: cluster.key, bodyFile: pushes,
                                              headers: ["idempotency-key: after"]) else { return false }
            seen.append(answer.status)
            if answer.status == 503 { XCTAssertEqual(answer.headers["retry-after"], "2", answer.body) }
            afterID = RelayClusterFixture.pushID(answer.body)
            return answer.status == 202
        }, "the node never accepted a push again; answers: \(seen)")
        XCTAssertTrue(seen.allSatisfy { $0 == 503 || $0 == 202 }, "after the restart only 503 (not reconnected yet) or 202: \(seen)")
        for id in [firstID, try XCTUnwrap(afterID)] {
            let done = try cluster.waitFinished(node.url, id)
            XCTAssertTrue(done.contains(#""sent":1"#), done)
        }
        assertAlive([node], "after the outage")
        print("relay outage API test: answers after the restart until the first 202: \(seen)")
    }

    /// The loaded cluster: three nodes sending one push of 3,000 targets (100 a second for the
    /// app, so it lasts past the last restart), Redis killed with `kill -9` and restarted 10
    /// times, each once the cluster has finished 20 more targets (so each restart lands with
    /// sends in flight), and a small push posted to one node after each restart. Every node stays alive; every accepted push
    /// finishes with exactly one result per target; every target reaches the emulator; the
    /// targets sent twice stay within docs/relay.md's bound: per Redis loss, per node, its
    /// sends in flight and answers not yet recorded (2 × workers.concurrency).
    func testThreeLoadedNodesSurviveTenRedisRestartsEveryTargetOnce() throws {
        let concurrency = 8
        let cluster = try makeCluster(concurrency: concurrency, ratePerMinute: 6_000)
        let nodes = try ["n1", "n2", "n3"].map { try cluster.startNode($0, quiet: false) }
        let targets = 3_000
        let big = cluster.tokens(targets, base: 0xE4_0000)
        var accepted: [(id: String, tokens: [String])] = [(try cluster.post(nodes[0].url, tokens: big), big)]
        var mark = 0
        for round in 1...restarts {
            XCTAssertTrue(Poll.blocking(timeout: 60) { cluster.finishedTargets() >= mark + 20 },
                          "round \(round): no progress since \(mark):\n\(nodes[0].process.stderr.suffix(3000))")
            let big = try cluster.redis.cli(["HLEN", "pushlab:results:\(accepted[0].id)"])
            XCTAssertLessThan(Int(big) ?? 0, targets, "round \(round): the restart must land while the big push is being sent")
            try crashAndRestartRedis()
            assertAlive(nodes, "after Redis restart \(round)")
            if nodes.contains(where: { !$0.process.process.isRunning }) { return }
            // A client right after the restart: 503 (with Retry-After) until its node reconnects, then 202.
            let small = cluster.tokens(3, base: 0xE5_0000 + 16 * round)
            let bodyFile = try cluster.body(tokens: small)
            var answers: [Int] = []
            var id: String?
            XCTAssertTrue(Poll.blocking(timeout: 30) {
                guard let answer = try? self.call("POST", nodes[round % 3].url + "/v1/apps/demo/pushes", key: cluster.key, bodyFile: bodyFile,
                                                  headers: ["idempotency-key: round-\(round)"]) else { return false }
                answers.append(answer.status)
                id = RelayClusterFixture.pushID(answer.body)
                return answer.status == 202
            }, "round \(round): no 202; answers \(answers)")
            XCTAssertTrue(answers.allSatisfy { $0 == 503 || $0 == 202 }, "round \(round): \(answers)")
            if let id { accepted.append((id, small)) }
            mark = cluster.finishedTargets()
        }
        let atLastRestart = mark
        for push in accepted {
            let done = try cluster.waitFinished(nodes[1].url, push.id, timeout: 120)
            XCTAssertTrue(done.contains(#""sent":\#(push.tokens.count)"#), "push \(push.id): \(done)")
            XCTAssertEqual(try cluster.redis.cli(["HLEN", "pushlab:results:\(push.id)"]), String(push.tokens.count),
                           "exactly one final result per target of \(push.id)")
        }
        assertAlive(nodes, "after \(restarts) Redis restarts under load")
        for node in nodes {
            let transcript = node.process.stop(grace: 30)
            XCTAssertEqual(node.process.exitStatus, 0, transcript.suffix(3000).description)
            XCTAssertFalse(transcript.contains("Sanitizer"), transcript.suffix(6000).description)
        }
        let (acceptedByEmulator, tokenUpdates) = try cluster.emulatorRecords()
        let all = accepted.flatMap(\.tokens)
        let missing = Set(all).subtracting(acceptedByEmulator.keys)
        XCTAssertEqual(missing.count, 0, "every accepted target reached the emulator; missing e.g. \(missing.prefix(3))")
        let duplicates = acceptedByEmulator.values.reduce(0) { $0 + max(0, $1 - 1) }
        let bound = restarts * nodes.count * 2 * concurrency
        XCTAssertLessThanOrEqual(duplicates, bound, "per Redis loss at most each node's sends in flight and unrecorded answers")
        XCTAssertEqual(tokenUpdates, 0, "the nodes share one provider token through the restarts")
        print("relay Redis outage test: 3 nodes, \(all.count) targets in \(accepted.count) pushes, \(restarts) Redis restarts "
              + "(last at \(atLastRestart) finished); duplicates sent: \(duplicates) (bound \(bound))")
    }

    /// docs/relay.md "Running several nodes": a node stopped with SIGTERM right after a Redis
    /// restart, mid-push, exits 0 within the drain bound (`drainBound`), three times in a
    /// row (the issue saw one node still "draining" 60 s later in one of five runs); the other
    /// node finishes the push with exactly one result per target. The deadline is the
    /// documented bound, not a timing claim: the measured times are printed.
    func testSIGTERMRightAfterARedisRestartExitsWithinTheDrainBound() throws {
        let drainBound: TimeInterval = 20  // docs/relay.md: "exits within 20 s" with Redis reachable
        let cluster = try makeCluster(concurrency: 8, ratePerMinute: 6_000)
        let steady = try cluster.startNode("steady", quiet: false)
        let targets = 1_500
        let tokens = cluster.tokens(targets, base: 0xE6_0000)
        let id = try cluster.post(steady.url, tokens: tokens)
        var drains: [String] = []
        var unrecorded = 0
        for round in 1...3 {
            let node = try cluster.startNode("stopped", quiet: false)
            let mark = cluster.finishedTargets()
            XCTAssertTrue(Poll.blocking(timeout: 60) { cluster.finishedTargets() >= mark + 20 }, "round \(round): no progress")
            XCTAssertLessThan(Int(try cluster.redis.cli(["HLEN", "pushlab:results:\(id)"])) ?? 0, targets, "round \(round): mid-push")
            try crashAndRestartRedis()
            let signalled = Date()
            kill(node.process.process.processIdentifier, SIGTERM)
            let exited = Poll.blocking(timeout: drainBound) { !node.process.process.isRunning }
            let took = Date().timeIntervalSince(signalled)
            XCTAssertTrue(exited, "round \(round): still draining \(Int(drainBound)) s after SIGTERM:\n\(node.process.stderr.suffix(4000))")
            let transcript = node.process.stop(grace: 30)
            XCTAssertEqual(node.process.exitStatus, 0, "round \(round): \(transcript.suffix(3000))")
            XCTAssertTrue(transcript.contains("signal 15, draining"), transcript.suffix(3000).description)
            XCTAssertFalse(transcript.contains("Sanitizer"), transcript.suffix(6000).description)
            drains.append(String(format: "%.2f s", took))
            unrecorded += transcript.components(separatedBy: "could not record").count - 1
        }
        let done = try cluster.waitFinished(steady.url, id, timeout: 120)
        XCTAssertTrue(done.contains(#""sent":\#(targets)"#), done)
        XCTAssertEqual(try cluster.redis.cli(["HLEN", "pushlab:results:\(id)"]), String(targets))
        assertAlive([steady], "after the other node's drains")
        steady.process.stop(grace: 30)
        let (accepted, _) = try cluster.emulatorRecords()
        XCTAssertEqual(Set(tokens).subtracting(accepted.keys).count, 0, "every target reached the emulator")
        let duplicates = accepted.values.reduce(0) { $0 + max(0, $1 - 1) }
        // Per Redis restart each node may add its sends in flight and unrecorded answers.
        let bound = 3 * 2 * 2 * cluster.concurrency
        XCTAssertLessThanOrEqual(duplicates, bound)
        print("relay drain after a Redis restart: SIGTERM to exit \(drains.joined(separator: ", ")) (bound \(Int(drainBound)) s); "
              + "batches not recorded by the stopped node: \(unrecorded); duplicates sent: \(duplicates) (bound \(bound))")
    }
}

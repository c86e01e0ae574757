import XCTest
import TestSupport
import PushCore
import PushHTTP
@testable import PushSend
import Glibc

/// The bulk engine with an in-process `send` (the real-transport bulk tests are elsewhere).
final class BulkEngineTests: XCTestCase {
    func testEveryTokenIsReportedOnceAndSinksSeeThemAll() async throws {
        let dir = Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let tokensFile = dir.appendingPathComponent("tokens.txt").path
        var text = "# comment line\n\n"
        for i in 0..<2_000 { text += String(format: "%064x", i) + (i % 3 == 0 ? "\r\n" : "\n") }
        try text.write(toFile: tokensFile, atomically: true, encoding: .utf8)

        let out = dir.appendingPathComponent("results.jsonl").path
        let prune = dir.appendingPathComponent("prune.txt").path
        let jsonl = try ResultsJSONLWriter(path: out)
        let pruneWriter = try PruneFileWriter(path: prune)
        let inFlight = LockedGauge()
        let summary = try await BulkSender(concurrency: 16).run(tokens: try TokenLineReader(path: tokensFile), sinks: [jsonl, pruneWriter]) { token, index in
            inFlight.enter()
            defer { inFlight.leave() }
            await Task.yield()
            let dead = index % 100 == 0
            return DeliveryReport(provider: .apns, target: token, id: "id-\(index)", status: dead ? 410 : 200,
                                  outcome: dead ? .rejected : .accepted, reason: dead ? "Unregistered" : nil,
                                  timestamp: dead ? 1 : nil, sentAt: Date(), prune: dead)
        }
        XCTAssertEqual(summary.total, 2_000)
        XCTAssertEqual(summary.accepted, 1_980)
        XCTAssertEqual(summary.rejected, 20)
        XCTAssertEqual(summary.reasons["Unregistered"], 20)
        XCTAssertLessThanOrEqual(inFlight.peak, 16)

        let lines = try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(lines.count, 2_000)
        let tokens = Set(try lines.map { line -> String in
            let obj = try JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any]
            XCTAssertNotNil(obj["apns_id"])
            XCTAssertNotNil(obj["latency_ms"])
            return obj["token"] as! String
        })
        XCTAssertEqual(tokens.count, 2_000)
        let pruned = try String(contentsOfFile: prune, encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(pruned.count, 20)
        XCTAssertEqual(String(pruned[0]), String(format: "%064x", 0))
    }

    func testWithTwoLoopsPushIRunsOnLoopIModTwoAndEveryTokenIsReportedOnce() async throws {
        let dir = Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let tokensFile = dir.appendingPathComponent("tokens.txt").path
        try (0..<400).map { String(format: "%064x", $0) }.joined(separator: "\n").write(toFile: tokensFile, atomically: true, encoding: .utf8)
        let clients = try (0..<2).map { _ in try HTTPClient() }
        let seen = LockedList<(UInt64, UInt, String)>()
        let out = dir.appendingPathComponent("results.jsonl").path
        let summary = try await BulkSender(concurrency: 32, executors: clients.map(\.executor))
            .run(tokens: try TokenLineReader(path: tokensFile), sinks: [try ResultsJSONLWriter(path: out)]) { token, index in
                // The running thread: its id and its name (/proc/thread-self/comm).
                let name = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? ""
                seen.append((index, UInt(pthread_self()), name.trimmingCharacters(in: .newlines)))
                await Task.yield()
                return DeliveryReport(provider: .apns, target: token, id: "id-\(index)", status: 200, outcome: .accepted, sentAt: Date())
            }
        for client in clients { await client.shutdown() }
        XCTAssertEqual(summary.total, 400)
        XCTAssertEqual(summary.accepted, 400)
        let runs = seen.items
        XCTAssertEqual(Set(runs.map(\.0)).count, 400, "every push ran once")
        XCTAssertEqual(Set(runs.map(\.2)), ["pushlab-client"], "pushes run on the clients' loop threads")
        let threadOfParity = Dictionary(grouping: runs, by: { $0.0 % 2 }).mapValues { Set($0.map(\.1)) }
        XCTAssertEqual(threadOfParity[0]?.count, 1)
        XCTAssertEqual(threadOfParity[1]?.count, 1)
        XCTAssertNotEqual(threadOfParity[0], threadOfParity[1], "two loops, one thread each")
        XCTAssertEqual(try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n").count, 400)
    }

    func testMissingTokenFileIsAClearError() {
        XCTAssertThrowsError(try TokenLineReader(path: "/nonexistent/tokens.txt")) { error in
            XCTAssertTrue("\(error)".contains("/nonexistent/tokens.txt"))
            XCTAssertTrue("\(error)".contains("--tokens"))
        }
    }

    func testReaderHandlesLinesAcrossBufferBoundariesAndNoFinalNewline() throws {
        let dir = Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("t.txt").path
        let tokens = (0..<5_000).map { "tok-\($0)-" + String(repeating: "x", count: $0 % 50) }
        try tokens.joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
        let reader = try TokenLineReader(path: path)
        var read: [String] = []
        while let t = try reader.next() { read.append(t) }
        XCTAssertEqual(read, tokens)
        XCTAssertEqual(reader.fractionConsumed, 1)
    }

    func testProgressLineShowsCountsRateAndETA() {
        var s = BulkSummary()
        for i in 0..<10 {
            s.add(DeliveryReport(provider: .fcm, target: "t\(i)", outcome: i < 8 ? .accepted : .failed, sentAt: Date()))
        }
        let line = BulkProgress.line(s, elapsed: .seconds(2), fraction: 0.5)
        XCTAssertTrue(line.contains("sent 10"), line)
        XCTAssertTrue(line.contains("ok 8"), line)
        XCTAssertTrue(line.contains("failed 2"), line)
        XCTAssertTrue(line.contains("5/s"), line)
        XCTAssertTrue(line.contains("ETA 0:02"), line)
    }

    // Issue 17 item 7: the bar showed 100% at 4801/5000, the input read but 199 answers to come.
    func testProgressReaches100PercentOnlyWhenEveryPushIsAnswered() async throws {
        let dir = Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("t.txt").path
        try (0..<5_000).map { "tok-\($0)" }.joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
        let lines = LockedLines()
        let progress = BulkProgress(interval: .zero) { lines.append($0) }
        _ = try await BulkSender(concurrency: 200).run(tokens: try TokenLineReader(path: path), sinks: [], progress: progress) { token, _ in
            await Task.yield()
            return DeliveryReport(provider: .fcm, target: token, outcome: .accepted, sentAt: Date())
        }
        let shown = lines.all.compactMap { line -> (percent: Int, sent: Int)? in
            guard let p = line.range(of: #"\d+%"#, options: .regularExpression),
                  let s = line.range(of: #"sent \d+"#, options: .regularExpression) else { return nil }
            return (Int(line[p].dropLast())!, Int(line[s].dropFirst(5))!)
        }
        XCTAssertGreaterThan(shown.count, 100)
        for (percent, sent) in shown where percent == 100 { XCTAssertEqual(sent, 5_000, "100% shown at \(sent)/5000") }
        XCTAssertTrue(shown.contains { $0.sent > 4_800 && $0.sent < 5_000 }, "the last in-flight answers are drawn too")
        XCTAssertEqual(shown.last?.percent, 100)
    }
}

final class LockedGauge: @unchecked Sendable {
    private let lock = NSLock()
    private var current = 0, highest = 0  // protected by `lock`
    func enter() { lock.withLock { current += 1; highest = max(highest, current) } }
    func leave() { lock.withLock { current -= 1 } }
    var peak: Int { lock.withLock { highest } }
}

final class LockedList<Element>: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [Element] = []  // protected by `lock`
    func append(_ element: Element) { lock.withLock { list.append(element) } }
    var items: [Element] { lock.withLock { list } }
}

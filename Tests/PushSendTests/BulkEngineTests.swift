import XCTest
import TestSupport
import PushCore
@testable import PushSend

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
}

final class LockedGauge: @unchecked Sendable {
    private let lock = NSLock()
    private var current = 0, highest = 0  // protected by `lock`
    func enter() { lock.withLock { current += 1; highest = max(highest, current) } }
    func leave() { lock.withLock { current -= 1 } }
    var peak: Int { lock.withLock { highest } }
}

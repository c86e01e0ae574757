import Foundation
import PushHTTP
import TestSupport
import XCTest

/// `kill -9` of a real `pushlab collector` (its default `--ack committed`, on two event loops as on a
/// 2-core machine by default, so two handler threads hand over to the writer) while clients are sending metrics:
/// every metric it answered 2xx is in the SQLite file after the restart (docs/metrics.md: with
/// `--ack committed` the answer comes only after the commit). Nothing acknowledged is lost.
final class CollectorKillTests: XCTestCase {
    /// The delivery ids the collector answered 2xx, collected by the load tasks.
    private final class Acknowledged: @unchecked Sendable {
        private let lock = NSLock()
        private var ids: [String] = []
        private var otherStatuses: [Int] = []
        func add(_ id: String) { lock.withLock { ids.append(id) } }
        func other(_ status: Int) { lock.withLock { otherStatuses.append(status) } }
        var all: [String] { lock.withLock { ids } }
        var unexpected: [Int] { lock.withLock { otherStatuses } }
    }

    private func startCollector(_ db: String) throws -> (ServerProcess, String) {
        let collector = try ServerProcess(["collector", "--port", "off", "--h2c-port", "0", "--event-loops", "2", "--db", db, "--cdp-key", "kill-key",
                                           "--quiet"]) { $0.contains("storing metrics") }
        let port = try XCTUnwrap(collector.port(after: "http://127.0.0.1:"), collector.banner)
        return (collector, "http://127.0.0.1:\(port)")
    }

    private static func metric(_ id: String) -> [UInt8] {
        Array(#"{"anonymousId":"a","type":"track","event":"Report Delivery Event","properties":{"recipient":"0f8b3e5a1c2d4e5f","metric":"delivered","deliveryId":"\#(id)"},"timestamp":"2026-01-01T00:00:00.000Z"}"#.utf8)
    }

    func testKillNineUnderLoadLosesNoAcknowledgedMetric() async throws {
        try Fixtures.requirePushlab()
        let dir = Fixtures.temporaryDirectory("collector-kill")
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("metrics.sqlite").path
        let (collector, base) = try startCollector(db)
        defer { collector.killHard() }

        // Load: 4 connections × 16 concurrent senders, each sending distinct metrics until the
        // collector stops answering.
        let acknowledged = Acknowledged()
        let authorization = "Basic " + Data("kill-key:".utf8).base64EncodedString()
        let clients = try (0..<4).map { _ in
            try HTTPClient(configuration: HTTPClientConfiguration(protocolMode: .h2cPriorKnowledge, requestTimeout: .seconds(20)))
        }
        let load = Task {
            await withTaskGroup(of: Void.self) { group in
                for (c, client) in clients.enumerated() {
                    for s in 0..<16 {
                        group.addTask {
                            for n in 0... {
                                let id = "kill-\(c)-\(s)-\(n)"
                                let request = HTTPRequest(method: "POST", url: base + "/v1/track",
                                                          headers: ["authorization": authorization, "content-type": "application/json"],
                                                          body: CollectorKillTests.metric(id))
                                guard let response = try? await client.send(request) else { return }  // the collector is gone
                                if (200..<300).contains(response.status) { acknowledged.add(id) } else { acknowledged.other(response.status) }
                            }
                        }
                    }
                }
            }
        }
        // Kill in the middle of the load, once a few hundred metrics were acknowledged.
        let loaded = await Poll.until(timeout: 60) { acknowledged.all.count >= 300 }
        XCTAssertTrue(loaded, "only \(acknowledged.all.count) metrics acknowledged under load")
        collector.killHard()
        XCTAssertTrue(collector.exitedBySignal, "the collector died by SIGKILL")
        await load.value
        for client in clients { await client.shutdown() }
        let acked = acknowledged.all
        XCTAssertEqual(acknowledged.unexpected, [], "statuses other than 2xx before the kill")
        XCTAssertEqual(Set(acked).count, acked.count)

        // Restart on the same file: it opens (recovering the WAL) and serves again.
        let (restarted, newBase) = try startCollector(db)
        let after = try ProcessRunner.run("/usr/bin/curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "--http2-prior-knowledge",
                                                            "-u", "kill-key:", "--data-binary", String(decoding: CollectorKillTests.metric("after-restart"), as: UTF8.self),
                                                            newBase + "/v1/track"])
        XCTAssertEqual(after.stdout, "200", after.stderr)
        let log = restarted.stop()
        XCTAssertEqual(restarted.exitStatus, 0, log)

        let integrity = try ProcessRunner.run("/usr/bin/sqlite3", [db, "PRAGMA integrity_check;"])
        XCTAssertEqual(integrity.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "ok", integrity.stderr)
        let stored = try ProcessRunner.run("/usr/bin/sqlite3", [db, "SELECT delivery_id FROM metrics WHERE duplicate = 0;"])
        XCTAssertEqual(stored.status, 0, stored.stderr)
        let ids = Set(stored.stdout.split(separator: "\n").map(String.init))
        let lost = acked.filter { !ids.contains($0) }
        XCTAssertEqual(lost, [], "\(lost.count) of \(acked.count) acknowledged metrics are not in \(db) after kill -9")
        XCTAssertTrue(ids.contains("after-restart"))
        // Nothing stored twice: each id at most once (duplicates are only ever flagged).
        let rows = stored.stdout.split(separator: "\n").count
        XCTAssertEqual(rows, ids.count)
    }
}

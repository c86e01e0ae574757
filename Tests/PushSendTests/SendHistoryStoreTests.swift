import XCTest
import TestSupport
@testable import PushSend

final class SendHistoryStoreTests: XCTestCase {
    func testReportsAreRecordedAndReadNewestFirst() throws {
        let dir = Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try SendHistoryStore(path: dir.appendingPathComponent("h/history.sqlite").path)
        let recorder = HistoryRecorder(store: store, endpoint: "https://localhost", batch: "b1", batchSize: 7)
        for i in 0..<50 {
            try recorder.record(DeliveryReport(provider: .apns, target: "tok\(i % 5)", id: "id\(i)", status: 200,
                                               outcome: .accepted, attempts: 1, latency: .milliseconds(3), sentAt: Date()))
        }
        try recorder.finish()
        XCTAssertEqual(try store.count(), 50)
        let last = try store.recent(limit: 3)
        XCTAssertEqual(last.map(\.messageID), ["id49", "id48", "id47"])
        let forToken = try store.recent(limit: 100, target: "tok2")
        XCTAssertEqual(forToken.count, 10)
        XCTAssertEqual(forToken.first?.batch, "b1")
        XCTAssertEqual(forToken.first?.latencyMs ?? 0, 3, accuracy: 0.001)
    }

    /// A history file written before FCM `fid` targets (no target_kind column) opens, keeps its
    /// rows (shown as tokens) and records the kind of new ones.
    func testAnOlderHistoryFileGainsTheTargetKindColumn() throws {
        let dir = Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("old.sqlite").path
        let old = try ProcessRunner.run("/usr/bin/sqlite3", [path, """
            CREATE TABLE sends (id INTEGER PRIMARY KEY, sent_at REAL NOT NULL, provider TEXT NOT NULL, target TEXT NOT NULL,
              message_id TEXT, status INTEGER, outcome TEXT NOT NULL, reason TEXT, detail TEXT, timestamp INTEGER,
              attempts INTEGER NOT NULL, latency_ms REAL NOT NULL, endpoint TEXT, batch TEXT);
            INSERT INTO sends (sent_at, provider, target, outcome, attempts, latency_ms) VALUES (1, 'fcm', 'old-token', 'accepted', 1, 2);
            """])
        XCTAssertEqual(old.status, 0, old.stderr)
        let store = try SendHistoryStore(path: path)
        var report = DeliveryReport(provider: .fcm, target: "dQw4w9WgXcQpZ7k3mB2x_A", outcome: .accepted, sentAt: Date())
        report.targetKind = "fid"
        try store.record([report], endpoint: nil)
        XCTAssertEqual(try store.recent(limit: 10).map(\.targetKind), ["fid", "token"])
        store.close()
        XCTAssertEqual(try SendHistoryStore(path: path).count(), 2, "opening it again does not add the column twice")
    }

    func testDefaultPathFollowsXDG() {
        XCTAssertEqual(SendHistoryStore.defaultPath(environment: ["XDG_DATA_HOME": "/d", "HOME": "/h"]), "/d/pushlab/history.sqlite")
        XCTAssertEqual(SendHistoryStore.defaultPath(environment: ["HOME": "/h"]), "/h/.local/share/pushlab/history.sqlite")
    }
}

import Foundation
import PushCore
import PushRelay
import PushStore
import TestSupport
import XCTest

/// A queue file written by the first version of the relay (claims stored as rows, no
/// `user_version`) opens in this version: converted once, nothing lost, claims ready again.
final class SQLiteQueueMigrationTests: XCTestCase {
    private var directory: URL!

    override func setUp() {
        directory = Fixtures.temporaryDirectory("relay-queue-v1")
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: directory)
    }

    /// The version 1 schema, as that version created it.
    private static let version1Schema = """
        CREATE TABLE IF NOT EXISTS pushes (
            row INTEGER PRIMARY KEY,
            id TEXT NOT NULL UNIQUE,
            app TEXT NOT NULL,
            content BLOB NOT NULL,
            target_count INTEGER NOT NULL,
            accepted_at REAL NOT NULL,
            idempotency_key TEXT,
            fingerprint TEXT,
            sent INTEGER NOT NULL DEFAULT 0,
            failed INTEGER NOT NULL DEFAULT 0
        );
        CREATE UNIQUE INDEX IF NOT EXISTS pushes_idempotency ON pushes(app, idempotency_key) WHERE idempotency_key IS NOT NULL;
        CREATE TABLE IF NOT EXISTS targets (
            id INTEGER PRIMARY KEY,
            push_row INTEGER NOT NULL,
            idx INTEGER NOT NULL,
            app TEXT NOT NULL,
            kind TEXT NOT NULL,
            value TEXT NOT NULL,
            environment TEXT,
            state INTEGER NOT NULL DEFAULT 0,
            ready_at REAL NOT NULL,
            lease_until REAL,
            consumer TEXT,
            attempts INTEGER NOT NULL DEFAULT 0,
            last_error TEXT,
            status TEXT,
            http_status INTEGER,
            reason TEXT,
            provider_id TEXT,
            token_invalid INTEGER,
            finished_at REAL
        );
        CREATE INDEX IF NOT EXISTS targets_of_push ON targets(push_row, idx);
        CREATE INDEX IF NOT EXISTS targets_ready ON targets(ready_at, id) WHERE state = 0;
        CREATE INDEX IF NOT EXISTS targets_claimed ON targets(lease_until) WHERE state = 1;
        CREATE INDEX IF NOT EXISTS targets_finished ON targets(app, finished_at) WHERE state = 2;
        CREATE INDEX IF NOT EXISTS targets_finished_token ON targets(app, value, finished_at) WHERE state = 2;
        CREATE TABLE IF NOT EXISTS invalid_tokens (
            app TEXT NOT NULL,
            kind TEXT NOT NULL,
            token TEXT NOT NULL,
            reason TEXT NOT NULL,
            push_id TEXT NOT NULL,
            reported_at REAL NOT NULL
        );
        CREATE INDEX IF NOT EXISTS invalid_tokens_of_app ON invalid_tokens(app, reported_at);
        """

    private func token(_ n: Int) -> String { String(repeating: "\(n)", count: 64) }

    /// Two pushes whose target rows interleave (two requests committed together), one target
    /// finished, one claimed, the rest waiting.
    private func writeVersion1File(_ path: String) throws {
        let db = try SQLiteDatabase(path: path)
        try db.execute(Self.version1Schema)
        let content = Array(#"{"apns":{"payload":{"aps":{"alert":"hi"}}}}"#.utf8)
        try db.run("INSERT INTO pushes (id, app, content, target_count, accepted_at, sent) VALUES ('p_old', 'demo', ?, 3, 1000, 1)", [.blob(content)])
        try db.run("INSERT INTO pushes (id, app, content, target_count, accepted_at) VALUES ('p_two', 'demo', ?, 2, 1000)", [.blob(content)])
        let rows: [(push: Int, idx: Int, token: Int, state: Int)] = [(1, 0, 1, 2), (2, 0, 4, 0), (1, 1, 2, 1), (2, 1, 5, 0), (1, 2, 3, 0)]
        for r in rows {
            try db.run("""
                INSERT INTO targets (push_row, idx, app, kind, value, state, ready_at, lease_until, consumer, attempts, status, http_status, provider_id, finished_at)
                VALUES (?, ?, 'demo', 'apns', ?, ?, 1000, ?, ?, ?, ?, ?, ?, ?)
                """, [.int(r.push), .int(r.idx), .text(token(r.token)), .int(r.state),
                      r.state == 1 ? .real(2000) : .null, r.state == 1 ? .text("old-node") : .null, .int(r.state == 2 ? 1 : 0),
                      r.state == 2 ? .text("sent") : .null, r.state == 2 ? .int(200) : .null,
                      r.state == 2 ? .text("apns-id-1") : .null, r.state == 2 ? .real(1001) : .null])
        }
        db.close()
    }

    func testVersion1FileIsConvertedWithNothingLost() async throws {
        let path = directory.appendingPathComponent("queue.sqlite").path
        try writeVersion1File(path)
        let time = ManualTimeSource()
        let queue = try SQLitePushQueue(path: path, time: time)
        let depth = try await queue.depth()
        XCTAssertEqual(depth, QueueDepth(waiting: 4, claimed: 0, finished: 1), "the claimed target is waiting again")

        let old = try await queue.status(of: "p_old", includeTargets: true)
        XCTAssertEqual(old?.targets.map(\.index), [0, 1, 2])
        XCTAssertEqual(old?.targets.map(\.phase), [.sent, .waiting, .waiting])
        XCTAssertEqual(old?.targets.map(\.target.value), [token(1), token(2), token(3)])
        XCTAssertEqual(old?.targets.first?.outcome?.providerID, "apns-id-1")
        let two = try await queue.status(of: "p_two", includeTargets: true)
        XCTAssertEqual(two?.targets.map(\.target.value), [token(4), token(5)])
        let delivered = try await queue.deliveries(app: "demo", token: token(1), since: nil, limit: 10)
        XCTAssertEqual(delivered.map(\.pushID), ["p_old"])

        let claims = try await queue.claim(consumer: "w", limit: 10, lease: .seconds(30))
        XCTAssertEqual(claims.map { "\($0.pushID)#\($0.index)" }, ["p_old#1", "p_old#2", "p_two#0", "p_two#1"])
        let report = try await queue.complete(claims.map { PushQueueContract.sent($0, at: time.now) })
        XCTAssertEqual(report.recorded, 4)
        XCTAssertEqual(report.finishedPushes, ["p_old", "p_two"])
        await queue.close()

        // Converted once: the file reopens as version 2 with everything final.
        let again = try SQLitePushQueue(path: path, time: time)
        let final = try await again.depth()
        XCTAssertEqual(final, QueueDepth(waiting: 0, claimed: 0, finished: 5))
        let version = try SQLiteDatabase(path: path).query("PRAGMA user_version").first?.int(0)
        XCTAssertEqual(version, 2)
        await again.close()
    }
}

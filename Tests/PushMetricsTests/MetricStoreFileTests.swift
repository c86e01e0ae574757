import Foundation
@testable import PushMetrics
import PushStore
import TestSupport
import XCTest

/// The collector's SQLite file as docs/metrics.md describes it ("Stored schema", "Durability"):
/// 16 KiB pages and no index on `metrics` when the collector creates the file, an older file
/// kept as it is, and checkpoints run by the store's own thread instead of inside a commit.
final class MetricStoreFileTests: XCTestCase {
    private var directory: URL!

    override func setUp() { directory = Fixtures.temporaryDirectory("metric-store") }
    override func tearDown() { try? FileManager.default.removeItem(at: directory) }

    private func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    private func record(body: [UInt8], deliveryID: String) -> MetricRequestRecord {
        MetricRequestRecord(receivedAt: Date(timeIntervalSince1970: 1_775_126_768), route: .track, status: 200,
                            userAgent: "test", httpVersion: "HTTP/2", remoteAddress: "127.0.0.1:1", body: body,
                            metrics: [(ReportedMetric(route: .track, deliveryID: deliveryID, metric: .delivered, recipient: "t"), false)])
    }

    private func value(_ db: SQLiteDatabase, _ sql: String) throws -> String? {
        let row = try db.query(sql).first
        return row?.string(0) ?? row?.int(0).map(String.init)
    }

    func testANewFileHas16KiBPagesNoIndexOnMetricsAndACheckpointBackstop() throws {
        let store = try MetricStore(path: path("new.sqlite"))
        try store.insert([record(body: Array("{}".utf8), deliveryID: "d1")])
        XCTAssertEqual(try value(store.database, "PRAGMA page_size"), "16384")
        XCTAssertEqual(try value(store.database, "PRAGMA journal_mode"), "wal")
        XCTAssertEqual(try value(store.database, "PRAGMA wal_autocheckpoint"), "4096", "the writer's connection checkpoints only as a backstop")
        XCTAssertEqual(try store.database.query("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'metrics'").count, 0)
        XCTAssertEqual(try store.metrics().map(\.reported.deliveryID), ["d1"])
    }

    /// The strings are staged and bound in place (`SQLiteStatement.stage`): an empty
    /// string stays '' (not NULL), nil stays NULL, non-ASCII text is kept byte for byte, and a
    /// row's values never leak into the next row's.
    func testEveryTextColumnIsStoredAsGivenEmptyNullAndNonASCII() throws {
        let file = path("texts.sqlite")
        let store = try MetricStore(path: file)
        let first = MetricRequestRecord(
            receivedAt: Date(timeIntervalSince1970: 1_775_126_768.5), route: .batch, status: 503, error: "fault:status-503", ignoredEvents: 2,
            userAgent: "", httpVersion: "HTTP/1.1", remoteAddress: "[::1]:443", body: [],
            metrics: [(ReportedMetric(route: .batch, deliveryID: "d-ü", metric: .opened, recipient: "",
                                      originalTimestamp: Date(timeIntervalSince1970: 1_775_126_768.123),
                                      originalTimestampText: "2026-04-02T10:46:08.123Z", batchIndex: 1), true)])
        let second = MetricRequestRecord(
            receivedAt: Date(timeIntervalSince1970: 1_775_126_769), route: .legacyEvents, status: 200, userAgent: nil, httpVersion: nil,
            remoteAddress: nil, body: Array(#"{"x":"✓"}"#.utf8),
            metrics: [(ReportedMetric(route: .legacyEvents, deliveryID: "d2", metric: .delivered, recipient: nil), false)])
        try store.insert([first, second])
        let requests = try ProcessRunner.run("/usr/bin/sqlite3", ["-separator", "|", file, """
            SELECT received_at, route, status, quote(error), metric_count, ignored_events, quote(user_agent), quote(http_version),
                   quote(remote_address), quote(body) FROM metric_requests ORDER BY id
            """])
        XCTAssertEqual(requests.status, 0, requests.stderr)
        XCTAssertEqual(requests.stdout.split(separator: "\n").map(String.init), [
            "1775126768.5|/v1/b|503|'fault:status-503'|1|2|''|'HTTP/1.1'|'[::1]:443'|X''",
            "1775126769.0|/push/events|200|NULL|1|0|NULL|NULL|NULL|X'7B2278223A22E29C93227D'",
        ])
        let metrics = try ProcessRunner.run("/usr/bin/sqlite3", ["-separator", "|", file, """
            SELECT request_id, route, delivery_id, metric, quote(recipient), quote(original_timestamp), quote(original_timestamp_text),
                   quote(batch_index), duplicate, quote(user_agent) FROM metrics ORDER BY id
            """])
        XCTAssertEqual(metrics.status, 0, metrics.stderr)
        XCTAssertEqual(metrics.stdout.split(separator: "\n").map(String.init), [
            "1|/v1/b|d-ü|opened|''|1775126768.123|'2026-04-02T10:46:08.123Z'|1|1|''",
            "2|/push/events|d2|delivered|NULL|NULL|NULL|NULL|0|NULL",
        ])
        XCTAssertEqual(try store.metrics().map { [$0.reported.deliveryID, $0.reported.recipient, $0.userAgent] }, [["d-ü", "", ""], ["d2", nil, nil]])
    }

    func testAFileMadeWithTheFormerIndexKeepsItAndItsPageSize() throws {
        let file = path("old.sqlite")
        do {
            let old = try SQLiteDatabase(path: file)  // SQLite's default 4 KiB pages, as before
            try old.execute(MetricStore.schema + "CREATE INDEX metrics_delivery_metric ON metrics(delivery_id, metric);")
            old.close()
        }
        let store = try MetricStore(path: file)
        try store.insert([record(body: Array("{}".utf8), deliveryID: "old-1")])
        XCTAssertEqual(try value(store.database, "PRAGMA page_size"), "4096")
        XCTAssertEqual(try store.database.query("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'metrics'").map { $0.string(0) ?? "" },
                       ["metrics_delivery_metric"])
        XCTAssertEqual(try value(store.database, "SELECT delivery_id FROM metrics INDEXED BY metrics_delivery_metric WHERE delivery_id = 'old-1'"), "old-1")
        XCTAssertEqual(try store.deduplicationKeys(), [MetricKey(deliveryID: "old-1", metric: .delivered)])
    }

    /// 17 bodies of 1 MiB: past the ~16 MB mark the store's checkpoint thread copies the WAL into
    /// the file (the writer's own automatic checkpoint waits for 64 MiB, so nothing else would).
    func testTheStoresThreadCheckpointsAfterAbout16MBWritten() throws {
        let file = path("big.sqlite")
        let store = try MetricStore(path: file)
        let body = [UInt8](repeating: UInt8(ascii: "x"), count: 1 << 20)
        func mainFileSize() throws -> Int { (try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? 0 }
        try store.insert([record(body: body, deliveryID: "b0")])
        store.finishCheckpoints()
        XCTAssertLessThan(try mainFileSize(), 1 << 20, "below the mark nothing is checkpointed")
        for i in 1..<17 { try store.insert([record(body: body, deliveryID: "b\(i)")]) }
        store.finishCheckpoints()
        XCTAssertGreaterThanOrEqual(try mainFileSize(), 16 << 20, "the checkpoint copied the committed pages into the file")
        XCTAssertEqual(try value(store.database, "SELECT COUNT(*) FROM metric_requests"), "17")
    }
}

import Foundation
import PushStore

/// pushlab's improved App Group store (issue 9 item 3): one SQLite file in WAL mode inside the
/// container, every change in a transaction (safe across the extension and app processes and
/// against a kill at any instant), one row per (delivery id, event) so a second NSE run for the
/// same push adds no duplicate, a configurable cap whose drops are counted, and rows removed
/// only when the caller says the collector acknowledged them.
public final class SQLitePendingMetricStore: PendingMetricStore {
    public static let fileName = "pushlab_pending_delivery_metrics.sqlite"

    public let cap: Int
    private let database: SQLiteDatabase
    public var kind: AppGroupStoreKind { .sqlite }
    public var path: String? { database.path }

    public init(directory: URL, cap: Int) throws(PendingMetricStoreError) {
        self.cap = cap
        do {
            database = try SQLiteDatabase(path: directory.appendingPathComponent(SQLitePendingMetricStore.fileName).path)
            try database.execute("""
                CREATE TABLE IF NOT EXISTS pending_delivery (
                    seq INTEGER PRIMARY KEY AUTOINCREMENT,
                    id TEXT NOT NULL UNIQUE,
                    delivery_id TEXT NOT NULL,
                    device_id TEXT NOT NULL,
                    event TEXT NOT NULL,
                    timestamp_ms INTEGER NOT NULL,
                    UNIQUE (delivery_id, event));
                CREATE TABLE IF NOT EXISTS pending_delivery_stats (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
                """)
        } catch {
            throw .database("\(error)")
        }
    }

    public func append(_ metric: PendingDeliveryMetric) throws(PendingMetricStoreError) -> PendingAppendOutcome {
        do {
            return try database.transaction { () throws -> PendingAppendOutcome in
                let inserted = try database.run(
                    "INSERT OR IGNORE INTO pending_delivery (id, delivery_id, device_id, event, timestamp_ms) VALUES (?, ?, ?, ?, ?)",
                    [.text(metric.id.uuidString), .text(metric.deliveryID), .text(metric.deviceID), .text(metric.event),
                     .integer(Int64((metric.timestamp.timeIntervalSince1970 * 1000).rounded()))])
                guard inserted == 1 else { return .duplicate }
                let count = try database.query("SELECT COUNT(*) FROM pending_delivery")[0].int(0) ?? 0
                let over = max(0, count - cap)
                if over > 0 {
                    try database.run("DELETE FROM pending_delivery WHERE seq IN (SELECT seq FROM pending_delivery ORDER BY seq LIMIT ?)",
                                     [.integer(Int64(over))])
                    try database.run("""
                        INSERT INTO pending_delivery_stats (name, value) VALUES ('dropped', ?)
                        ON CONFLICT(name) DO UPDATE SET value = value + excluded.value
                        """, [.integer(Int64(over))])
                }
                return .stored(droppedOldest: over)
            }
        } catch {
            throw .database("\(error)")
        }
    }

    public func loadAll() throws(PendingMetricStoreError) -> [PendingDeliveryMetric] {
        do {
            return try database.query("SELECT id, delivery_id, device_id, event, timestamp_ms FROM pending_delivery ORDER BY timestamp_ms, seq")
                .compactMap { row in
                    guard let id = row.string(0).flatMap(UUID.init(uuidString:)), let delivery = row.string(1),
                          let device = row.string(2), let event = row.string(3), let ms = row.int(4) else { return nil }
                    return PendingDeliveryMetric(id: id, deliveryID: delivery, deviceID: device, event: event,
                                                 timestamp: Date(timeIntervalSince1970: Double(ms) / 1000))
                }
        } catch {
            throw .database("\(error)")
        }
    }

    public func remove(ids: Set<UUID>) throws(PendingMetricStoreError) -> Int {
        guard !ids.isEmpty else { return 0 }
        do {
            return try database.transaction {
                var removed = 0
                for id in ids { removed += try database.run("DELETE FROM pending_delivery WHERE id = ?", [.text(id.uuidString)]) }
                return removed
            }
        } catch {
            throw .database("\(error)")
        }
    }

    public func droppedCount() throws(PendingMetricStoreError) -> Int? {
        do {
            return try database.query("SELECT value FROM pending_delivery_stats WHERE name = 'dropped'").first?.int(0) ?? 0
        } catch {
            throw .database("\(error)")
        }
    }
}

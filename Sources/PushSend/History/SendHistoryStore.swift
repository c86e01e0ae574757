import Foundation
import PushStore

/// Every push pushlab sent, in one SQLite file (`pushlab history` reads it). One table,
/// `sends`; its SQL lives here and nowhere else.
public final class SendHistoryStore: Sendable {
    public let path: String
    private let db: SQLiteDatabase

    /// Where history goes when `--history` is not given: `$XDG_DATA_HOME/pushlab/history.sqlite`,
    /// else `~/.local/share/pushlab/history.sqlite` (XDG Base Directory spec).
    public static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        UserDirectories.data(environment: environment) + "/history.sqlite"
    }

    public init(path: String) throws {
        self.path = path
        db = try SQLiteDatabase(path: path)
        try db.execute("""
            CREATE TABLE IF NOT EXISTS sends (
                id INTEGER PRIMARY KEY,
                sent_at REAL NOT NULL,
                provider TEXT NOT NULL,
                target TEXT NOT NULL,
                message_id TEXT,
                status INTEGER,
                outcome TEXT NOT NULL,
                reason TEXT,
                detail TEXT,
                timestamp INTEGER,
                attempts INTEGER NOT NULL,
                latency_ms REAL NOT NULL,
                endpoint TEXT,
                batch TEXT
            );
            CREATE INDEX IF NOT EXISTS sends_target ON sends(target);
            CREATE INDEX IF NOT EXISTS sends_sent_at ON sends(sent_at);
            """)
        // Files written before FCM `fid` targets have no target_kind column: add it (NULL: a token).
        let hasKind = { try self.db.query("SELECT name FROM pragma_table_info('sends')").contains { $0.string(0) == "target_kind" } }
        if try !hasKind() {
            // Another process may add it at the same moment: only its absence afterwards is an error.
            do { try db.execute("ALTER TABLE sends ADD COLUMN target_kind TEXT") } catch { if try !hasKind() { throw error } }
        }
    }

    private static let insertSQL = """
        INSERT INTO sends (sent_at, provider, target, message_id, status, outcome, reason, detail, timestamp,
                           attempts, latency_ms, endpoint, batch, target_kind)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """

    /// Records reports in one transaction (a bulk send records them in batches, not a commit
    /// per push).
    public func record(_ reports: some Collection<DeliveryReport>, endpoint: String?, batch: String? = nil) throws {
        guard !reports.isEmpty else { return }
        try db.transaction {
            for r in reports {
                try db.run(Self.insertSQL, [
                    .real(r.sentAt.timeIntervalSince1970), .text(r.provider.rawValue), .text(r.target), .text(r.id),
                    .int(r.status), .text(r.outcome.rawValue), .text(r.reason), .text(r.detail),
                    r.timestamp.map { .integer($0) } ?? .null, .int(r.attempts), .real(r.latency.inMilliseconds),
                    .text(endpoint), .text(batch), .text(r.targetKind),
                ])
            }
        }
    }

    /// The most recent sends, newest first, optionally for one token.
    /// The newest sends; `target` filters to one target, or to every target starting with it
    /// when `targetPrefix` (the shortened tokens the outputs show are prefixes).
    public func recent(limit: Int, target: String? = nil, targetPrefix: Bool = false) throws -> [SendHistoryEntry] {
        let columns = "id, sent_at, provider, target, message_id, status, outcome, reason, detail, timestamp, attempts, latency_ms, endpoint, batch, target_kind"
        let rows: [SQLiteRow]
        if let target, targetPrefix {
            rows = try db.query("SELECT \(columns) FROM sends WHERE substr(target, 1, ?) = ? ORDER BY id DESC LIMIT ?",
                                [.integer(Int64(target.count)), .text(target), .integer(Int64(limit))])
        } else if let target {
            rows = try db.query("SELECT \(columns) FROM sends WHERE target = ? ORDER BY id DESC LIMIT ?",
                                [.text(target), .integer(Int64(limit))])
        } else {
            rows = try db.query("SELECT \(columns) FROM sends ORDER BY id DESC LIMIT ?", [.integer(Int64(limit))])
        }
        return rows.map(SendHistoryEntry.init(row:))
    }

    public func count() throws -> Int {
        try db.query("SELECT COUNT(*) FROM sends").first?.int(0) ?? 0
    }

    public func close() { db.close() }
}

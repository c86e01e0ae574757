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
        if let xdg = environment["XDG_DATA_HOME"], !xdg.isEmpty, xdg.hasPrefix("/") {
            return xdg + "/pushlab/history.sqlite"
        }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return home + "/.local/share/pushlab/history.sqlite"
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

/// One row of the history.
public struct SendHistoryEntry: Sendable, Hashable, Encodable {
    public var id: Int
    public var sentAt: Date
    public var provider: String
    public var target: String
    public var messageID: String?
    public var status: Int?
    public var outcome: String
    public var reason: String?
    public var detail: String?
    public var timestamp: Int64?
    public var attempts: Int
    public var latencyMs: Double
    public var endpoint: String?
    public var batch: String?
    /// `fid`, `token`, `topic` or `condition` (FCM's target field); `token` for APNs.
    public var targetKind: String

    enum CodingKeys: String, CodingKey {
        case id, sentAt = "sent_at", provider, target, messageID = "message_id", status, outcome, reason, detail, timestamp
        case attempts, latencyMs = "latency_ms", endpoint, batch, targetKind = "target_kind"
    }

    /// JSON for `pushlab history --json`: snake_case keys, `sent_at` and APNs's `timestamp` (when
    /// the token stopped being valid) as ISO 8601, nulls kept.
    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        try c.encode(id, forKey: .id)
        try c.encode(formatter.string(from: sentAt), forKey: .sentAt)
        try c.encode(provider, forKey: .provider)
        try c.encode(target, forKey: .target)
        try c.encode(messageID, forKey: .messageID)
        try c.encode(status, forKey: .status)
        try c.encode(outcome, forKey: .outcome)
        try c.encode(reason, forKey: .reason)
        try c.encode(detail, forKey: .detail)
        try c.encode(timestamp.map { formatter.string(from: Date(timeIntervalSince1970: Double($0) / 1000)) }, forKey: .timestamp)
        try c.encode(attempts, forKey: .attempts)
        try c.encode((latencyMs * 1000).rounded() / 1000, forKey: .latencyMs)
        try c.encode(endpoint, forKey: .endpoint)
        try c.encode(batch, forKey: .batch)
        try c.encode(targetKind, forKey: .targetKind)
    }

    init(row: SQLiteRow) {
        id = row.int(0) ?? 0
        sentAt = Date(timeIntervalSince1970: row.double(1) ?? 0)
        provider = row.string(2) ?? ""
        target = row.string(3) ?? ""
        messageID = row.string(4)
        status = row.int(5)
        outcome = row.string(6) ?? ""
        reason = row.string(7)
        detail = row.string(8)
        timestamp = row.int(9).map(Int64.init)
        attempts = row.int(10) ?? 0
        latencyMs = row.double(11) ?? 0
        endpoint = row.string(12)
        batch = row.string(13)
        targetKind = row.string(14) ?? "token"
    }
}

/// Buffers reports and writes them to the history a batch at a time.
public final class HistoryRecorder: BulkReportSink {
    private let store: SendHistoryStore
    private let endpoint: String?
    private let batch: String?
    private var pending: [DeliveryReport] = []
    private let batchSize: Int

    public init(store: SendHistoryStore, endpoint: String?, batch: String?, batchSize: Int = 2_000) {
        self.store = store
        self.endpoint = endpoint
        self.batch = batch
        self.batchSize = batchSize
        pending.reserveCapacity(batchSize)
    }

    public func record(_ report: DeliveryReport) throws {
        pending.append(report)
        if pending.count >= batchSize { try flush() }
    }

    public func finish() throws { try flush() }

    private func flush() throws {
        try store.record(pending, endpoint: endpoint, batch: batch)
        pending.removeAll(keepingCapacity: true)
    }
}

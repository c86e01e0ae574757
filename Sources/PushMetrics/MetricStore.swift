import Foundation
import PushCore
import PushStore

/// The collector's SQLite file: tables `metric_requests` and `metrics` (schema in
/// docs/metrics.md). All of the collector's SQL lives here.
public final class MetricStore: Sendable {
    public let database: SQLiteDatabase
    public var path: String { database.path }

    static let schema = """
    CREATE TABLE IF NOT EXISTS metric_requests (
      id INTEGER PRIMARY KEY,
      received_at REAL NOT NULL,
      route TEXT NOT NULL,
      status INTEGER NOT NULL,
      error TEXT,
      metric_count INTEGER NOT NULL,
      ignored_events INTEGER NOT NULL,
      user_agent TEXT,
      http_version TEXT,
      remote_address TEXT,
      body BLOB NOT NULL
    );
    CREATE TABLE IF NOT EXISTS metrics (
      id INTEGER PRIMARY KEY,
      request_id INTEGER NOT NULL REFERENCES metric_requests(id),
      received_at REAL NOT NULL,
      route TEXT NOT NULL,
      delivery_id TEXT NOT NULL,
      metric TEXT NOT NULL,
      recipient TEXT,
      original_timestamp REAL,
      original_timestamp_text TEXT,
      batch_index INTEGER,
      duplicate INTEGER NOT NULL,
      user_agent TEXT
    );
    CREATE INDEX IF NOT EXISTS metrics_delivery_metric ON metrics(delivery_id, metric);
    """

    /// Opens or creates the store at `path` (WAL mode).
    public init(path: String) throws {
        database = try SQLiteDatabase(path: path)
        try database.execute(Self.schema)
    }

    static let insertRequest = """
        INSERT INTO metric_requests (received_at, route, status, error, metric_count, ignored_events, user_agent,
                                     http_version, remote_address, body) VALUES (?,?,?,?,?,?,?,?,?,?)
        """
    static let insertMetric = """
        INSERT INTO metrics (request_id, received_at, route, delivery_id, metric, recipient, original_timestamp,
                             original_timestamp_text, batch_index, duplicate, user_agent)
        VALUES (?,?,?,?,?,?,?,?,?,?,?)
        """

    /// Writes requests and their metrics in one transaction (both statements prepared once for
    /// the whole batch).
    public func insert(_ records: [MetricRequestRecord]) throws {
        guard !records.isEmpty else { return }
        try database.transaction {
            try database.withStatement(Self.insertRequest) { request in
                try database.withStatement(Self.insertMetric) { metric in
                    for r in records { try insert(r, request: request, metric: metric) }
                }
            }
        }
    }

    private func insert(_ r: MetricRequestRecord, request: SQLiteStatement, metric: SQLiteStatement) throws {
        let receivedAt = r.receivedAt.timeIntervalSince1970
        try request.bind(1, receivedAt)
        try request.bind(2, r.route.rawValue)
        try request.bind(3, r.status)
        try request.bind(4, r.error)
        try request.bind(5, r.metrics.count)
        try request.bind(6, r.ignoredEvents)
        try request.bind(7, r.userAgent)
        try request.bind(8, r.httpVersion)
        try request.bind(9, r.remoteAddress)
        try request.bind(10, r.body)
        let requestID = try request.insert()
        for (m, duplicate) in r.metrics {
            try metric.bind(1, requestID)
            try metric.bind(2, receivedAt)
            try metric.bind(3, m.route.rawValue)
            try metric.bind(4, m.deliveryID)
            try metric.bind(5, m.metric.rawValue)
            try metric.bind(6, m.recipient)
            try metric.bind(7, m.originalTimestamp?.timeIntervalSince1970)
            try metric.bind(8, m.originalTimestampText)
            try metric.bind(9, m.batchIndex)
            try metric.bind(10, Int64(duplicate ? 1 : 0))
            try metric.bind(11, r.userAgent)
            try metric.insert()
        }
    }

    /// Every stored metric, in arrival order.
    public func metrics() throws -> [StoredMetric] {
        try database.query("""
            SELECT id, request_id, received_at, route, delivery_id, metric, recipient, original_timestamp,
                   original_timestamp_text, batch_index, duplicate, user_agent
            FROM metrics ORDER BY id
            """).compactMap { row in
            guard let route = CIOMetricRoute(rawValue: row.string(3) ?? ""), let metric = CIOMetric(rawValue: row.string(5) ?? "") else {
                return nil
            }
            let reported = ReportedMetric(route: route, deliveryID: row.string(4) ?? "", metric: metric, recipient: row.string(6),
                                          originalTimestamp: row.double(7).map { Date(timeIntervalSince1970: $0) },
                                          originalTimestampText: row.string(8), batchIndex: row.int(9))
            return StoredMetric(id: Int64(row.int(0) ?? 0), requestID: Int64(row.int(1) ?? 0),
                                receivedAt: Date(timeIntervalSince1970: row.double(2) ?? 0), reported: reported,
                                isDuplicate: row.int(10) == 1, userAgent: row.string(11))
        }
    }

    /// Request counts by route, status and error.
    public func requestOutcomes() throws -> [RequestOutcomeCount] {
        try database.query("""
            SELECT route, status, error, COUNT(*) FROM metric_requests GROUP BY route, status, error ORDER BY route, status, error
            """).compactMap { row in
            guard let route = CIOMetricRoute(rawValue: row.string(0) ?? "") else { return nil }
            return RequestOutcomeCount(route: route, status: row.int(1) ?? 0, error: row.string(2), count: row.int(3) ?? 0)
        }
    }

    /// Every (delivery id, metric) already stored — seeds duplicate detection on restart.
    public func deduplicationKeys() throws -> Set<MetricKey> {
        var keys = Set<MetricKey>()
        for row in try database.query("SELECT DISTINCT delivery_id, metric FROM metrics") {
            // A metric name this build does not know cannot be repeated by a metric it accepts.
            guard let metric = CIOMetric(rawValue: row.string(1) ?? "") else { continue }
            keys.insert(MetricKey(deliveryID: row.string(0) ?? "", metric: metric))
        }
        return keys
    }
}

import Foundation
import PushCore
import PushStore
import Synchronization

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
    """

    /// Page size of a new file: a `/v1/b` body of a few kilobytes is stored with every request,
    /// and with 4 KiB pages the kernel's per-page work on the WAL and the checkpoints cost more
    /// than the rows themselves (benchmarks/results/collector.md, "where the µs go").
    static let pageSize = 16_384

    /// Opens or creates the store at `path` (WAL mode; 16 KiB pages when it creates the file).
    /// No index on `metrics`: nothing the collector or the report reads needs one (duplicate
    /// flags come from memory, the report reads every row in order), and each index is one more
    /// b-tree written per metric. A file made with the former `metrics_delivery_metric` index
    /// keeps it; create one yourself for ad-hoc queries by delivery id.
    public init(path: String) throws {
        database = try SQLiteDatabase(path: path, pageSize: Self.pageSize)
        try database.execute(Self.schema)
        // Checkpoints run on their own connection and thread (`checkpointSoon`), not inside a
        // commit: SQLite's automatic one copies the WAL into the file and syncs both (about
        // 0.1 s per 16 MB here), and every answer waiting for the commit would wait for it too.
        // But a checkpoint that runs beside the writer never catches up with it under a steady
        // load, and the WAL only starts over once everything in it was copied: it grew to 556 MB
        // for 290 MB of rows. So the writer's own automatic checkpoint stays, as a backstop at
        // `walBackstopPages`: it copies only what the checkpoint thread has not, then the WAL
        // starts over.
        try database.execute("PRAGMA wal_autocheckpoint=\(Self.walBackstopPages)")
    }

    /// WAL pages (64 MiB of 16 KiB pages) at which the writer's commit checkpoints by itself.
    static let walBackstopPages = 4_096

    /// Bytes of rows written since the last checkpoint started (the rows' size, estimated), and
    /// whether one is running; the checkpoint connection is opened by the first checkpoint.
    private struct CheckpointState {
        var written = 0
        var running = false
        var connection: SQLiteDatabase?
    }
    private let checkpoints = Mutex(CheckpointState())
    private let checkpointQueue = DispatchQueue(label: "pushlab.metrics.checkpoint")
    /// About as much WAL as SQLite's default of 1,000 pages of 16 KiB.
    static let checkpointAfterBytes = 16 << 20
    /// A row's size apart from its request body (the other columns, the metrics row), estimated.
    static let rowOverheadBytes = 256

    /// After a commit of `bytes` (by `insert`, or by the Retainza tables on the same connection):
    /// starts a PASSIVE checkpoint on the checkpoint thread once enough was written and none is
    /// running. Passive: it never blocks the writer, and copies what was committed when it
    /// started; the WAL starts over from its beginning at the first commit after a checkpoint
    /// that copied everything (under a steady load, the writer's backstop checkpoint).
    func checkpointSoon(afterWriting bytes: Int) {
        let start = checkpoints.withLock { c in
            c.written += bytes
            guard c.written >= Self.checkpointAfterBytes, !c.running else { return false }
            c.written = 0
            c.running = true
            return true
        }
        guard start else { return }
        checkpointQueue.async { [self] in
            let connection = checkpoints.withLock { $0.connection } ?? (try? SQLiteDatabase(path: database.path))
            // A failed checkpoint leaves the WAL to the next one (or to the last connection's close).
            _ = try? connection?.query("PRAGMA wal_checkpoint(PASSIVE)")
            checkpoints.withLock { c in
                c.connection = connection
                c.running = false
            }
        }
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
        var bytes = 0
        try database.transaction {
            try database.withStatement(Self.insertRequest) { request in
                try database.withStatement(Self.insertMetric) { metric in
                    // By index: `for r in records` copied each record (a retain and a release of
                    // every field, per row).
                    for k in records.indices {
                        try insert(records[k], request: &request, metric: &metric)
                        bytes += records[k].body.count + Self.rowOverheadBytes * (1 + records[k].metrics.count)
                    }
                }
            }
        }
        checkpointSoon(afterWriting: bytes)
    }

    /// One request's rows. The strings are staged and bound in place (`SQLiteStatement.stage`):
    /// SQLite's own copy of each (ten per request) cost more than the rest of the binding, and
    /// binding each in its own `withUTF8` closure cost a reference count update per closure
    /// (benchmarks/results/collector.md).
    private func insert(_ r: borrowing MetricRequestRecord, request: inout SQLiteStatement, metric: inout SQLiteStatement) throws {
        let receivedAt = r.receivedAt.timeIntervalSince1970
        let route = r.route.rawValue
        try request.bind(1, receivedAt)
        try request.bind(3, r.status)
        try request.bind(5, r.metrics.count)
        try request.bind(6, r.ignoredEvents)
        request.stage(2, route)
        request.stage(4, r.error)
        request.stage(7, r.userAgent)
        request.stage(8, r.httpVersion)
        request.stage(9, r.remoteAddress)
        let requestID = try request.insertStaged(blob: r.body, at: 10)
        for k in r.metrics.indices {
            let (m, duplicate) = r.metrics[k]
            try metric.bind(1, requestID)
            try metric.bind(2, receivedAt)
            try metric.bind(7, m.originalTimestamp?.timeIntervalSince1970)
            try metric.bind(9, m.batchIndex)
            try metric.bind(10, Int64(duplicate ? 1 : 0))
            metric.stage(3, m.route.rawValue)
            metric.stage(4, m.deliveryID)
            metric.stage(5, m.metric.rawValue)
            metric.stage(6, m.recipient)
            metric.stage(8, m.originalTimestampText)
            metric.stage(11, r.userAgent)
            try metric.insertStaged()
        }
    }

    /// Returns once every checkpoint started so far has finished (tests).
    func finishCheckpoints() { checkpointQueue.sync {} }

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

import Foundation
import PushCore
import PushStore

/// The collector's tables for the modelled Retainza ingest API (docs/metrics.md): every request
/// with its outcome, and the push registrations (token → install, user; pruned or unregistered).
public final class RetainzaIngestStore: Sendable {
    public let database: SQLiteDatabase
    /// Told the (estimated) bytes of every write: the metric store counts them toward its next
    /// checkpoint (`MetricStore` turns SQLite's automatic checkpoints off on its connection).
    private let wrote: @Sendable (Int) -> Void

    static let schema = """
    CREATE TABLE IF NOT EXISTS retainza_requests (
      id INTEGER PRIMARY KEY,
      received_at REAL NOT NULL,
      route TEXT NOT NULL,
      status INTEGER NOT NULL,
      error TEXT,
      install_id TEXT,
      user_id TEXT,
      event TEXT,
      message_id TEXT,
      action TEXT,
      call_timestamp TEXT,
      body BLOB NOT NULL
    );
    CREATE TABLE IF NOT EXISTS retainza_devices (
      token TEXT PRIMARY KEY,
      install_id TEXT NOT NULL,
      user_id TEXT,
      registered_at REAL NOT NULL,
      unregistered_at REAL,
      pruned_at REAL,
      pruned_reason TEXT
    );
    """

    public init(database: SQLiteDatabase, wrote: @escaping @Sendable (_ bytes: Int) -> Void = { _ in }) throws {
        self.database = database
        self.wrote = wrote
        try database.execute(Self.schema)
    }

    /// A row's size apart from a request body, estimated.
    private static let rowBytes = 256

    public struct Request: Sendable, Equatable {
        public var receivedAt: Date
        public var route: String
        public var status: Int
        public var error: String?
        public var installID: String?
        public var userID: String?
        public var event: String?
        public var messageID: String?
        public var action: String?
        /// The body's `timestamp`: when the app made the call (§6).
        public var callTimestamp: String?
    }

    func insert(_ r: Request, body: [UInt8]) throws {
        _ = try database.run("""
            INSERT INTO retainza_requests (received_at, route, status, error, install_id, user_id, event, message_id, action,
                                           call_timestamp, body) VALUES (?,?,?,?,?,?,?,?,?,?,?)
            """, [.real(r.receivedAt.timeIntervalSince1970), .text(r.route), .integer(Int64(r.status)), .text(r.error),
                  .text(r.installID), .text(r.userID), .text(r.event), .text(r.messageID), .text(r.action),
                  .text(r.callTimestamp), .blob(body)])
        wrote(body.count + Self.rowBytes)
    }

    func register(token: String, installID: String, userID: String?, at: Date) throws {
        _ = try database.run("""
            INSERT INTO retainza_devices (token, install_id, user_id, registered_at) VALUES (?,?,?,?)
            ON CONFLICT(token) DO UPDATE SET install_id = excluded.install_id, user_id = excluded.user_id,
              registered_at = excluded.registered_at, unregistered_at = NULL, pruned_at = NULL, pruned_reason = NULL
            """, [.text(token), .text(installID), .text(userID), .real(at.timeIntervalSince1970)])
        wrote(Self.rowBytes)
    }

    func unregister(token: String, at: Date) throws {
        _ = try database.run("UPDATE retainza_devices SET unregistered_at = ? WHERE token = ?", [.real(at.timeIntervalSince1970), .text(token)])
        wrote(Self.rowBytes)
    }

    /// What the Retainza server does when FCM answers a token with an invalid-token error (§4):
    /// the device is pruned as dead. Returns whether a registration was pruned.
    @discardableResult
    public func prune(token: String, reason: String, at: Date) throws -> Bool {
        let pruned = try database.run("UPDATE retainza_devices SET pruned_at = ?, pruned_reason = ? WHERE token = ? AND pruned_at IS NULL",
                                      [.real(at.timeIntervalSince1970), .text(reason), .text(token)]) > 0
        wrote(Self.rowBytes)
        return pruned
    }

    public func requests() throws -> [Request] {
        try database.query("""
            SELECT received_at, route, status, error, install_id, user_id, event, message_id, action, call_timestamp
            FROM retainza_requests ORDER BY id
            """).map { row in
            Request(receivedAt: Date(timeIntervalSince1970: row.double(0) ?? 0), route: row.string(1) ?? "", status: row.int(2) ?? 0,
                    error: row.string(3), installID: row.string(4), userID: row.string(5), event: row.string(6),
                    messageID: row.string(7), action: row.string(8), callTimestamp: row.string(9))
        }
    }

    public struct Device: Sendable, Equatable {
        public var token: String
        public var installID: String
        public var userID: String?
        public var registeredAt: Date
        public var unregistered: Bool
        public var prunedReason: String?
        /// Registered, neither unregistered nor pruned: the server would send to it.
        public var isActive: Bool { !unregistered && prunedReason == nil }
    }

    public func devices() throws -> [Device] {
        try database.query("""
            SELECT token, install_id, user_id, registered_at, unregistered_at, pruned_reason, pruned_at FROM retainza_devices ORDER BY registered_at, token
            """).map { row in
            Device(token: row.string(0) ?? "", installID: row.string(1) ?? "", userID: row.string(2),
                   registeredAt: Date(timeIntervalSince1970: row.double(3) ?? 0), unregistered: row.double(4) != nil,
                   prunedReason: row.double(6) != nil ? (row.string(5) ?? "pruned") : nil)
        }
    }
}

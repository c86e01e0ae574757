import Foundation

/// What happened to an appended row.
public enum PendingAppendOutcome: Sendable, Equatable {
    /// Written; `droppedOldest` rows fell off the cap to make room.
    case stored(droppedOldest: Int)
    /// The `sqlite` store already holds a row for this delivery id.
    case duplicate
    /// No store in this process (kind `off`, no container, or a group id that was never provisioned).
    case disabled(reason: String)
}

/// The App Group store the extension writes before reporting and the host app drains at launch.
/// Implementations are safe to use from two processes at once (file lock / SQLite transactions).
public protocol PendingMetricStore: Sendable {
    var kind: AppGroupStoreKind { get }
    /// The file behind the store, if any.
    var path: String? { get }
    /// Appends a row; the cap policy of the kind applies.
    func append(_ metric: PendingDeliveryMetric) throws(PendingMetricStoreError) -> PendingAppendOutcome
    /// Every row, oldest first.
    func loadAll() throws(PendingMetricStoreError) -> [PendingDeliveryMetric]
    /// Removes the rows with these ids; returns how many were removed.
    @discardableResult
    func remove(ids: Set<UUID>) throws(PendingMetricStoreError) -> Int
    /// Rows dropped by the cap since the store was created (nil when the kind does not count them).
    func droppedCount() throws(PendingMetricStoreError) -> Int?
}

/// Why a store operation failed.
public enum PendingMetricStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    case cannotCreateDirectory(path: String, errno: Int32)
    case cannotLock(path: String, errno: Int32)
    case writeFailed(path: String, errno: Int32)
    case database(String)

    public var reason: String {
        switch self {
        case .cannotCreateDirectory(let path, let e): return "cannot create \(path): \(String(cString: strerror(e)))"
        case .cannotLock(let path, let e): return "cannot lock \(path): \(String(cString: strerror(e)))"
        case .writeFailed(let path, let e): return "cannot write \(path): \(String(cString: strerror(e)))"
        case .database(let why): return "App Group SQLite store: \(why)"
        }
    }

    public var fix: String { "check that --container names a writable directory" }
    public var description: String { "\(reason)\n  fix: \(fix)" }
}

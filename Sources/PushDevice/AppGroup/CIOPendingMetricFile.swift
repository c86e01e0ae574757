import Foundation

/// The reference SDK's App Group file, byte for byte (docs/specs/device-side.md §4):
/// `<container>/io.customer/pending_push_delivery_metrics.json`, a JSON array with sorted keys,
/// whole-second ISO 8601 UTC dates, at most 100 rows (newest kept), replaced atomically; a file
/// that does not decode counts as empty and is overwritten by the next write.
///
/// Two processes (extension and app) share it. iOS coordinates them with NSFileCoordinator; here
/// every read-modify-write holds an exclusive `flock` on the `io.customer` directory itself, so
/// no lock file is needed. The new content is written in full to a spare file in the same
/// directory, which is then atomically exchanged with the target, so a process killed at any
/// instant leaves either the old or the new file — never a torn one (`CIOPendingFileAccess`).
///
/// Within one process, concurrent changes are group-committed: changes that arrive while a
/// rewrite is running are applied together by the next one (each caller still returns only
/// after the rewrite holding its change is in place), and a file whose bytes are those this
/// process last wrote or read is not decoded again.
public struct CIOPendingMetricFile: PendingMetricStore {
    public static let fileName = "pending_push_delivery_metrics.json"
    public static let maxRows = 100
    /// Temporaries of earlier pushlab versions (write-then-rename), removed when a store opens.
    static let tempPrefix = ".pending_push_delivery_metrics.json."

    public let directory: URL
    private let commits: GroupCommit<Change, Outcome>
    public var kind: AppGroupStoreKind { .cio }
    public var path: String? { fileURL.path }
    public var fileURL: URL { directory.appendingPathComponent(CIOPendingMetricFile.fileName) }

    enum Change: Sendable {
        case append(PendingDeliveryMetric)
        case remove(Set<UUID>)
        case read
    }

    enum Outcome: Sendable {
        case appended(droppedOldest: Int)
        case removed(Int)
        case rows([PendingDeliveryMetric])
    }

    /// `keepsIntactRowsOfDamagedFile`: false is the reference SDK (a file that does not decode
    /// counts as empty, docs/specs/device-side.md §4); true (pushlab's `improved` SDK mode) reads
    /// such a file's complete rows instead (`intactRows`), so a torn or corrupted file loses only
    /// the rows it damaged.
    public init(directory: URL, keepsIntactRowsOfDamagedFile: Bool = false) throws(PendingMetricStoreError) {
        self.directory = directory
        if mkdir(directory.deletingLastPathComponent().path, 0o755) != 0 && errno != EEXIST {
            throw .cannotCreateDirectory(path: directory.deletingLastPathComponent().path, errno: errno)
        }
        if mkdir(directory.path, 0o755) != 0 && errno != EEXIST {
            throw .cannotCreateDirectory(path: directory.path, errno: errno)
        }
        let file = try CIOPendingFileAccess(directory: directory, fileName: CIOPendingMetricFile.fileName,
                                            keepsIntactRowsOfDamagedFile: keepsIntactRowsOfDamagedFile)
        try file.locked { () throws(PendingMetricStoreError) in file.removeLeftoverTemporaries(prefix: CIOPendingMetricFile.tempPrefix) }
        commits = GroupCommit { batch in CIOPendingMetricFile.commit(batch, to: file) }
    }

    public func append(_ metric: PendingDeliveryMetric) throws(PendingMetricStoreError) -> PendingAppendOutcome {
        guard case .appended(let dropped) = try commits.perform(.append(metric)) else { preconditionFailure("append answered by another change") }
        return .stored(droppedOldest: dropped)
    }

    public func loadAll() throws(PendingMetricStoreError) -> [PendingDeliveryMetric] {
        guard case .rows(let rows) = try commits.perform(.read) else { preconditionFailure("read answered by another change") }
        return rows
    }

    public func remove(ids: Set<UUID>) throws(PendingMetricStoreError) -> Int {
        guard !ids.isEmpty else { return 0 }
        guard case .removed(let count) = try commits.perform(.remove(ids)) else { preconditionFailure("remove answered by another change") }
        return count
    }

    /// The reference file keeps no drop count.
    public func droppedCount() throws(PendingMetricStoreError) -> Int? { nil }

    /// How many rewrites group commit ran and how many changes they carried.
    var commitStatistics: GroupCommitStats { commits.statistics }

    /// One batch under the lock: the current rows, every change in arrival order, and at most one
    /// rewrite. If the rewrite fails, every change of the batch fails with it (none is in the file).
    private static func commit(_ batch: [Change], to file: CIOPendingFileAccess) -> [Result<Outcome, PendingMetricStoreError>] {
        do {
            return try file.locked { () throws(PendingMetricStoreError) -> [Result<Outcome, PendingMetricStoreError>] in
                var rows = file.currentRows()
                var changed = false
                var outcomes: [Result<Outcome, PendingMetricStoreError>] = []
                outcomes.reserveCapacity(batch.count)
                for change in batch {
                    switch change {
                    case .append(let metric):
                        rows.append(CIOPendingFileAccess.CachedRow(metric: metric))
                        let dropped = max(0, rows.count - maxRows)
                        if dropped > 0 { rows.removeFirst(dropped) }
                        changed = true
                        outcomes.append(.success(.appended(droppedOldest: dropped)))
                    case .remove(let ids):
                        let before = rows.count
                        rows.removeAll { ids.contains($0.metric.id) }
                        if rows.count != before { changed = true }
                        outcomes.append(.success(.removed(before - rows.count)))
                    case .read:
                        outcomes.append(.success(.rows(rows.map(\.metric))))
                    }
                }
                if changed { try file.replace(with: rows) }
                return outcomes
            }
        } catch {
            return Array(repeating: .failure(error), count: batch.count)
        }
    }
}

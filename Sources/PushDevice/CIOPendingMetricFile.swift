import Foundation

/// The reference SDK's App Group file, byte for byte (device-side.md §4):
/// `<container>/io.customer/pending_push_delivery_metrics.json`, a JSON array with sorted keys,
/// whole-second ISO 8601 UTC dates, at most 100 rows (newest kept), replaced atomically; a file
/// that does not decode counts as empty and is overwritten by the next write.
///
/// Two processes (extension and app) share it. iOS coordinates them with NSFileCoordinator; here
/// every read-modify-write holds an exclusive `flock` on the `io.customer` directory itself, so
/// the data file stays exactly the reference file and no extra file is needed. The write goes to
/// a temporary file in the same directory and is renamed over the target, so a process killed at
/// any instant leaves either the old or the new file — never a torn one.
public struct CIOPendingMetricFile: PendingMetricStore {
    public static let fileName = "pending_push_delivery_metrics.json"
    public static let maxRows = 100
    private static let tempPrefix = ".pending_push_delivery_metrics.json."

    public let directory: URL
    public var kind: AppGroupStoreKind { .cio }
    public var path: String? { fileURL.path }
    public var fileURL: URL { directory.appendingPathComponent(CIOPendingMetricFile.fileName) }

    public init(directory: URL) throws(PendingMetricStoreError) {
        self.directory = directory
        if mkdir(directory.deletingLastPathComponent().path, 0o755) != 0 && errno != EEXIST {
            throw .cannotCreateDirectory(path: directory.deletingLastPathComponent().path, errno: errno)
        }
        if mkdir(directory.path, 0o755) != 0 && errno != EEXIST {
            throw .cannotCreateDirectory(path: directory.path, errno: errno)
        }
    }

    /// The bytes the reference SDK writes for `rows`: `JSONEncoder` with sorted keys and
    /// `.iso8601` dates (whole seconds, `Z`), no whitespace.
    public static func encode(_ rows: [PendingDeliveryMetric]) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        // Encoding plain strings, UUIDs and dates cannot fail.
        return Array((try? encoder.encode(rows)) ?? Data("[]".utf8))
    }

    /// Rows from file bytes; nil when they do not decode (the SDK then treats the file as empty).
    public static func decode(_ bytes: [UInt8]) -> [PendingDeliveryMetric]? {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try? decoder.decode([PendingDeliveryMetric].self, from: Data(bytes))
    }

    public func append(_ metric: PendingDeliveryMetric) throws(PendingMetricStoreError) -> PendingAppendOutcome {
        try locked { () throws(PendingMetricStoreError) -> PendingAppendOutcome in
            var rows = readRows()
            rows.append(metric)
            let dropped = max(0, rows.count - CIOPendingMetricFile.maxRows)
            if dropped > 0 { rows.removeFirst(dropped) }
            try replace(with: rows)
            return .stored(droppedOldest: dropped)
        }
    }

    public func loadAll() throws(PendingMetricStoreError) -> [PendingDeliveryMetric] {
        try locked { () throws(PendingMetricStoreError) -> [PendingDeliveryMetric] in readRows() }
    }

    public func remove(ids: Set<UUID>) throws(PendingMetricStoreError) -> Int {
        guard !ids.isEmpty else { return 0 }
        return try locked { () throws(PendingMetricStoreError) -> Int in
            let rows = readRows()
            let kept = rows.filter { !ids.contains($0.id) }
            guard kept.count != rows.count else { return 0 }
            try replace(with: kept)
            return rows.count - kept.count
        }
    }

    /// The reference file keeps no drop count.
    public func droppedCount() throws(PendingMetricStoreError) -> Int? { nil }

    // MARK: - File access (callers hold the lock)

    private func readRows() -> [PendingDeliveryMetric] {
        guard let data = FileManager.default.contents(atPath: fileURL.path) else { return [] }
        return CIOPendingMetricFile.decode(Array(data)) ?? []
    }

    /// Writes a temporary file next to the target and renames it into place (atomic on POSIX).
    private func replace(with rows: [PendingDeliveryMetric]) throws(PendingMetricStoreError) {
        let bytes = CIOPendingMetricFile.encode(rows)
        let temp = directory.appendingPathComponent(CIOPendingMetricFile.tempPrefix + "\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp").path
        let fd = open(temp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw .writeFailed(path: temp, errno: errno) }
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + written, bytes.count - written) }
            if n < 0 {
                if errno == EINTR { continue }
                let e = errno
                close(fd)
                unlink(temp)
                throw .writeFailed(path: temp, errno: e)
            }
            written += n
        }
        close(fd)
        if rename(temp, fileURL.path) != 0 {
            let e = errno
            unlink(temp)
            throw .writeFailed(path: fileURL.path, errno: e)
        }
    }

    /// Runs `body` holding an exclusive lock on the directory, shared with every other process
    /// using this container. Also removes temporary files a killed writer left behind: nobody
    /// else can be mid-write while we hold the lock.
    private func locked<T>(_ body: () throws(PendingMetricStoreError) -> T) throws(PendingMetricStoreError) -> T {
        let fd = open(directory.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw .cannotLock(path: directory.path, errno: errno) }
        defer { close(fd) }  // closing the descriptor releases the lock
        while flock(fd, LOCK_EX) != 0 {
            if errno != EINTR { throw .cannotLock(path: directory.path, errno: errno) }
        }
        removeLeftoverTemporaries()
        return try body()
    }

    private func removeLeftoverTemporaries() {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return }
        for name in names where name.hasPrefix(CIOPendingMetricFile.tempPrefix) && name.hasSuffix(".tmp") {
            unlink(directory.appendingPathComponent(name).path)
        }
    }
}

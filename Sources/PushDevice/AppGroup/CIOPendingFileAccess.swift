import Foundation
import PushStore

/// The system calls behind `CIOPendingMetricFile`: the cross-process lock, reading the rows, and
/// the atomic replacement — plus the bytes and rows of the file this process last wrote or read.
///
/// Replacement: the new bytes go into a spare file next to the target
/// (`.pending_push_delivery_metrics.json.swap`), which is then atomically exchanged with the
/// target (`renameat2` `RENAME_EXCHANGE`). The target name therefore always names a complete
/// file — the old one or the new one — exactly as with write-temporary-then-rename, and a writer
/// killed mid-write only leaves a torn *spare*, which nobody reads and the next write overwrites.
/// Unlike a rename over the target, the exchange neither creates nor frees an inode, which on
/// ext4 with online discard makes a rewrite many times cheaper
/// (benchmarks/results/design-measurements.md).
/// The spare keeps the previous version; the data file stays the reference file byte for byte.
/// Where the file system cannot exchange, the spare is renamed over the target instead (the
/// plain atomic replacement).
///
/// Readers must hold the lock (every store operation does): a reader that opened the target
/// without it could find its inode turned into the spare and rewritten under it.
///
/// Only `GroupCommit`'s leader calls it, one batch at a time; `lock` makes that a checked rule
/// rather than an assumption (it is never contended).
final class CIOPendingFileAccess: @unchecked Sendable {
    static let spareSuffix = ".swap"

    let directory: URL
    let filePath: String
    let sparePath: String
    // Everything below is protected by `lock`.
    // NSLock, not Mutex: it scopes a critical section (`locked`'s body, file I/O under `flock`), not one value.
    private let lock = NSLock()
    /// The `io.customer` directory, opened once; `flock` on it is the cross-process lock.
    private let directoryFD: Int32
    /// The file as this process last wrote or read it. The target's bytes are compared with
    /// `bytes` on every batch (one small read): equal bytes mean equal rows, so nothing is
    /// decoded again, and any other writer's change — whatever its inode or timestamps — is seen.
    private var cache: (bytes: [UInt8], rows: [CachedRow])?

    /// A row and, once needed, its encoded bytes (each row is encoded once, not per rewrite).
    struct CachedRow {
        var metric: PendingDeliveryMetric
        var bytes: [UInt8]?

        /// The row as the file holds it: whole-second timestamp (docs/specs/device-side.md §4), so a row
        /// served from the cache equals the same row decoded from the file.
        init(metric: PendingDeliveryMetric, bytes: [UInt8]? = nil) {
            var m = metric
            m.timestamp = Date(timeIntervalSince1970: m.timestamp.timeIntervalSince1970.rounded(.down))
            self.metric = m
            self.bytes = bytes
        }
    }

    /// A file that does not decode: its intact rows (true) or empty, as the reference (false).
    let keepsIntactRowsOfDamagedFile: Bool

    init(directory: URL, fileName: String, keepsIntactRowsOfDamagedFile: Bool = false) throws(PendingMetricStoreError) {
        self.directory = directory
        self.keepsIntactRowsOfDamagedFile = keepsIntactRowsOfDamagedFile
        filePath = directory.appendingPathComponent(fileName).path
        sparePath = directory.appendingPathComponent("." + fileName + CIOPendingFileAccess.spareSuffix).path
        let fd = open(directory.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw .cannotLock(path: directory.path, errno: errno) }
        directoryFD = fd
    }

    deinit { close(directoryFD) }

    /// Runs `body` holding the exclusive lock on the directory, shared with every other process
    /// (and every other store instance) using this container.
    func locked<T>(_ body: () throws(PendingMetricStoreError) -> T) throws(PendingMetricStoreError) -> T {
        lock.lock()
        defer { lock.unlock() }
        while flock(directoryFD, LOCK_EX) != 0 {
            if errno != EINTR { throw .cannotLock(path: directory.path, errno: errno) }
        }
        defer { flock(directoryFD, LOCK_UN) }
        return try body()
    }

    // MARK: - Inside `locked`

    /// The file's rows: from the cache when the file holds the cached bytes, else decoded. A
    /// missing file is empty; an undecodable one counts as empty (docs/specs/device-side.md §4) or, when
    /// `keepsIntactRowsOfDamagedFile`, yields its intact rows.
    func currentRows() -> [CachedRow] {
        guard let bytes = readFile(filePath) else {
            cache = nil
            return []
        }
        if let cache, cache.bytes == bytes { return cache.rows }
        let decoded = keepsIntactRowsOfDamagedFile ? CIOPendingMetricFile.intactRows(bytes) : (CIOPendingMetricFile.decode(bytes) ?? [])
        let rows = decoded.map { CachedRow(metric: $0) }
        cache = (bytes, rows)
        return rows
    }

    /// Makes the file hold exactly `rows`: spare written in full, then exchanged with the target.
    func replace(with rows: [CachedRow]) throws(PendingMetricStoreError) {
        var rows = rows
        for i in rows.indices where rows[i].bytes == nil {
            rows[i].bytes = CIOPendingMetricFile.encodeRow(rows[i].metric)
        }
        let bytes = CIOPendingMetricFile.join(rows.map { $0.bytes! })
        do {
            try SpareFileReplacement.replace(filePath, spare: sparePath, with: bytes)
        } catch {
            throw .writeFailed(path: error.path, errno: error.errno)
        }
        cache = (bytes, rows)
    }

    /// Temporary files a killed writer of an earlier pushlab left behind (it renamed temporaries
    /// over the target); called under the lock, when nobody else can be mid-write.
    func removeLeftoverTemporaries(prefix: String) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return }
        for name in names where name.hasPrefix(prefix) && name.hasSuffix(".tmp") {
            unlink(directory.appendingPathComponent(name).path)
        }
    }

    /// The whole file, or nil when it is missing or unreadable.
    private func readFile(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var st = stat()
        let hint = fstat(fd, &st) == 0 ? Int(st.st_size) : 0
        var bytes = [UInt8](repeating: 0, count: max(hint + 1, 4096))
        var count = 0
        while true {
            if count == bytes.count { bytes.append(contentsOf: repeatElement(0, count: bytes.count)) }
            let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + count, $0.count - count) }
            if n < 0 {
                if errno == EINTR { continue }
                return nil
            }
            if n == 0 { break }
            count += n
        }
        bytes.removeSubrange(count...)
        return bytes
    }
}

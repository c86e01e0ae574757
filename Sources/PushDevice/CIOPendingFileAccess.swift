import Foundation

/// The system calls behind `CIOPendingMetricFile`: the cross-process lock, reading the rows, and
/// the atomic rewrite — plus what this process knows about the file it last wrote or read.
///
/// Only `GroupCommit`'s leader calls it, one batch at a time; `lock` makes that a checked rule
/// rather than an assumption (it is never contended).
final class CIOPendingFileAccess: @unchecked Sendable {
    let directory: URL
    let filePath: String
    private let tempPrefix: String
    // Everything below is protected by `lock`.
    private let lock = NSLock()
    /// The `io.customer` directory, opened once; `flock` on it is the cross-process lock.
    private let directoryFD: Int32
    private var cache: CachedFile?
    private var writes = 0

    /// The rows of the file this process last wrote or read, and an open descriptor on that
    /// file. Holding the descriptor keeps the inode allocated, so its number cannot be reused by
    /// a later file: while `stat` of the path shows the same inode, size, mtime and ctime, the
    /// path still names exactly these bytes and nothing needs re-reading or decoding.
    private struct CachedFile {
        var identity: FileIdentity
        var descriptor: Int32
        var rows: [CachedRow]
    }

    /// A row and, once needed, its encoded bytes (each row is encoded once, not per rewrite).
    struct CachedRow {
        var metric: PendingDeliveryMetric
        var bytes: [UInt8]?
    }

    struct FileIdentity: Equatable {
        var device: UInt64, inode: UInt64, size: Int64
        var modified: timespec, changed: timespec
        init(_ st: stat) {
            device = UInt64(st.st_dev); inode = UInt64(st.st_ino); size = Int64(st.st_size)
            modified = st.st_mtim; changed = st.st_ctim
        }
        static func == (a: FileIdentity, b: FileIdentity) -> Bool {
            a.device == b.device && a.inode == b.inode && a.size == b.size
                && a.modified.tv_sec == b.modified.tv_sec && a.modified.tv_nsec == b.modified.tv_nsec
                && a.changed.tv_sec == b.changed.tv_sec && a.changed.tv_nsec == b.changed.tv_nsec
        }
    }

    init(directory: URL, fileName: String, tempPrefix: String) throws(PendingMetricStoreError) {
        self.directory = directory
        filePath = directory.appendingPathComponent(fileName).path
        // pid + a per-instance token: two stores on one directory in one process never collide.
        self.tempPrefix = tempPrefix + "\(getpid()).\(UInt32.random(in: 0...UInt32.max))."
        let fd = open(directory.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw .cannotLock(path: directory.path, errno: errno) }
        directoryFD = fd
    }

    deinit {
        close(directoryFD)
        if let cache { close(cache.descriptor) }
    }

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

    /// The file's rows: from the cache when the path still names the cached file, else read
    /// and decoded. A missing or undecodable file counts as empty (device-side.md §4).
    func currentRows() -> [CachedRow] {
        var st = stat()
        guard stat(filePath, &st) == 0 else {
            forget()
            return []
        }
        if let cache, cache.identity == FileIdentity(st) { return cache.rows }
        forget()
        let fd = open(filePath, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return [] }
        // The identity is taken before reading: a concurrent in-place writer can only make the
        // cache look older than its bytes (re-read next time), never newer.
        guard fstat(fd, &st) == 0, let bytes = readAll(fd) else {
            close(fd)
            return []
        }
        let rows = (CIOPendingMetricFile.decode(bytes) ?? []).map { CachedRow(metric: $0, bytes: nil) }
        cache = CachedFile(identity: FileIdentity(st), descriptor: fd, rows: rows)
        return rows
    }

    /// Writes `rows` to a temporary file next to the target and renames it into place: atomic
    /// on POSIX, so a process killed at any instant leaves the old or the new file, never a torn
    /// one, and a reader that opened the old file keeps reading the old bytes.
    func replace(with rows: [CachedRow]) throws(PendingMetricStoreError) {
        var rows = rows
        for i in rows.indices where rows[i].bytes == nil {
            rows[i].bytes = CIOPendingMetricFile.encodeRow(rows[i].metric)
        }
        let bytes = CIOPendingMetricFile.join(rows.map { $0.bytes! })
        writes += 1
        let temp = directory.appendingPathComponent(tempPrefix + "\(writes).tmp").path
        let fd = open(temp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
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
        if rename(temp, filePath) != 0 {
            let e = errno
            close(fd)
            unlink(temp)
            throw .writeFailed(path: filePath, errno: e)
        }
        // After the rename: it updates the inode's ctime.
        var st = stat()
        forget()
        if fstat(fd, &st) == 0 {
            cache = CachedFile(identity: FileIdentity(st), descriptor: fd, rows: rows)
        } else {
            close(fd)
        }
    }

    /// Temporary files a killed writer left behind; called under the lock, when nobody else can
    /// be mid-write.
    func removeLeftoverTemporaries(prefix: String) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return }
        for name in names where name.hasPrefix(prefix) && name.hasSuffix(".tmp") {
            unlink(directory.appendingPathComponent(name).path)
        }
    }

    private func forget() {
        if let cache { close(cache.descriptor) }
        cache = nil
    }

    private func readAll(_ fd: Int32) -> [UInt8]? {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                return nil
            }
            if n == 0 { return bytes }
            bytes.append(contentsOf: chunk[0..<n])
        }
    }
}

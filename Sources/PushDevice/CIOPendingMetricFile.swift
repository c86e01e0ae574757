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
    private let cache = DecodedFileCache()
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
        // Temporary files a killed writer left behind; removed under the lock, when nobody
        // else can be mid-write.
        try locked { () throws(PendingMetricStoreError) in removeLeftoverTemporaries() }
    }

    /// The bytes the reference SDK writes for `rows`: `JSONEncoder` with sorted keys and
    /// `.iso8601` dates (whole seconds, `Z`), no whitespace.
    public static func encode(_ rows: [PendingDeliveryMetric]) -> [UInt8] {
        fastEncode(rows) ?? foundationEncode(rows)
    }

    /// What `JSONEncoder` with `.sortedKeys` and `.iso8601` dates writes.
    static func foundationEncode(_ rows: [PendingDeliveryMetric]) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        // The reference uses `.iso8601`; the same text, formatted without a formatter per date.
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var c = encoder.singleValueContainer()
            try c.encode(WholeSecondISO8601.string(date))
        }
        // Encoding plain strings, UUIDs and dates cannot fail.
        return Array((try? encoder.encode(rows)) ?? Data("[]".utf8))
    }

    /// The same bytes written directly when no string needs escaping (delivery ids and tokens
    /// are base64url/hex): the file is rewritten on every append and remove, and `JSONEncoder`
    /// dominated that cost. Anything else goes through `foundationEncode`.
    static func fastEncode(_ rows: [PendingDeliveryMetric]) -> [UInt8]? {
        func plain(_ s: String) -> Bool {
            s.utf8.allSatisfy { $0 >= 0x20 && $0 != 0x22 && $0 != 0x5C && $0 != 0x2F && $0 < 0x80 }
        }
        var out: [UInt8] = [UInt8(ascii: "[")]
        out.reserveCapacity(rows.count * 180 + 2)
        for (i, r) in rows.enumerated() {
            guard plain(r.deliveryID), plain(r.deviceID), plain(r.event) else { return nil }
            if i > 0 { out.append(UInt8(ascii: ",")) }
            out += Array(#"{"delivery_id":""#.utf8) + Array(r.deliveryID.utf8)
            out += Array(#"","device_id":""#.utf8) + Array(r.deviceID.utf8)
            out += Array(#"","event":""#.utf8) + Array(r.event.utf8)
            out += Array(#"","id":""#.utf8) + Array(r.id.uuidString.utf8)
            out += Array(#"","timestamp":""#.utf8) + Array(WholeSecondISO8601.string(r.timestamp).utf8)
            out += Array(#""}"#.utf8)
        }
        out.append(UInt8(ascii: "]"))
        return out
    }

    /// Rows from file bytes; nil when they do not decode (the SDK then treats the file as empty).
    public static func decode(_ bytes: [UInt8]) -> [PendingDeliveryMetric]? {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let c = try decoder.singleValueContainer()
            let text = try c.decode(String.self)
            if let date = WholeSecondISO8601.date(text) ?? (try? Date(text, strategy: .iso8601)) { return date }
            throw DecodingError.dataCorruptedError(in: c, debugDescription: "not an ISO 8601 date: \(text)")
        }
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
        // Every write renames a new file into place, so (inode, size, mtime) names one content:
        // when this process wrote the current file, its rows need no decoding.
        var st = stat()
        guard stat(fileURL.path, &st) == 0 else { return [] }
        let identity = DecodedFileCache.Identity(st)
        if let rows = cache.rows(for: identity) { return rows }
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
        var st = stat()
        let identity = fstat(fd, &st) == 0 ? DecodedFileCache.Identity(st) : nil
        close(fd)
        if rename(temp, fileURL.path) != 0 {
            let e = errno
            unlink(temp)
            throw .writeFailed(path: fileURL.path, errno: e)
        }
        cache.store(rows, for: identity)
    }

    /// Runs `body` holding an exclusive lock on the directory, shared with every other process
    /// using this container.
    private func locked<T>(_ body: () throws(PendingMetricStoreError) -> T) throws(PendingMetricStoreError) -> T {
        let fd = open(directory.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw .cannotLock(path: directory.path, errno: errno) }
        defer { close(fd) }  // closing the descriptor releases the lock
        while flock(fd, LOCK_EX) != 0 {
            if errno != EINTR { throw .cannotLock(path: directory.path, errno: errno) }
        }
        return try body()
    }

    private func removeLeftoverTemporaries() {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return }
        for name in names where name.hasPrefix(CIOPendingMetricFile.tempPrefix) && name.hasSuffix(".tmp") {
            unlink(directory.appendingPathComponent(name).path)
        }
    }
}

/// `yyyy-MM-ddTHH:mm:ssZ` in UTC, the text `JSONEncoder`'s `.iso8601` strategy writes, by hand:
/// the store is rewritten on every append, and a formatter per date dominated its cost.
enum WholeSecondISO8601 {
    static func string(_ date: Date) -> String {
        var t = time_t(date.timeIntervalSince1970.rounded(.down))
        var tm = tm()
        gmtime_r(&t, &tm)
        func pad(_ v: Int32, _ width: Int) -> String {
            let s = String(v)
            return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
        }
        return "\(pad(tm.tm_year + 1900, 4))-\(pad(tm.tm_mon + 1, 2))-\(pad(tm.tm_mday, 2))T\(pad(tm.tm_hour, 2)):\(pad(tm.tm_min, 2)):\(pad(tm.tm_sec, 2))Z"
    }

    /// Parses exactly `yyyy-MM-ddTHH:mm:ssZ`; nil for anything else.
    static func date(_ text: String) -> Date? {
        let b = Array(text.utf8)
        guard b.count == 20, b[4] == 45, b[7] == 45, b[10] == 84, b[13] == 58, b[16] == 58, b[19] == 90 else { return nil }
        func num(_ r: Range<Int>) -> Int32? {
            var v: Int32 = 0
            for i in r { guard (48...57).contains(b[i]) else { return nil }; v = v * 10 + Int32(b[i] - 48) }
            return v
        }
        guard let y = num(0..<4), let mo = num(5..<7), let d = num(8..<10), let h = num(11..<13), let mi = num(14..<16), let s = num(17..<19),
              (1...12).contains(mo), (1...31).contains(d), h < 24, mi < 60, s < 61 else { return nil }
        var tm = tm()
        tm.tm_year = y - 1900; tm.tm_mon = mo - 1; tm.tm_mday = d; tm.tm_hour = h; tm.tm_min = mi; tm.tm_sec = s
        return Date(timeIntervalSince1970: TimeInterval(timegm(&tm)))
    }
}

/// The rows of the file this process wrote last, keyed by the file's identity.
private final class DecodedFileCache: @unchecked Sendable {
    struct Identity: Equatable {
        var inode: UInt64, size: Int64, seconds: Int, nanoseconds: Int
        init(_ st: stat) {
            inode = UInt64(st.st_ino); size = Int64(st.st_size)
            seconds = Int(st.st_mtim.tv_sec); nanoseconds = Int(st.st_mtim.tv_nsec)
        }
    }
    // Protected by `lock`.
    private var identity: Identity?
    private var rows: [PendingDeliveryMetric] = []
    private let lock = NSLock()

    func rows(for id: Identity) -> [PendingDeliveryMetric]? { lock.withLock { identity == id ? rows : nil } }
    func store(_ rows: [PendingDeliveryMetric], for id: Identity?) {
        lock.withLock {
            identity = id
            self.rows = rows
        }
    }
}

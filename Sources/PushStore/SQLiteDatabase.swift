import CPushLab
import Foundation

/// One SQLite connection. Every pushlab store (send history, collector, App Group store,
/// gateway records) sits on this one wrapper: WAL mode, prepared statements, explicit
/// transactions, no C types outside this module.
///
/// Concurrency: a connection is used from one thread at a time; every public method takes
/// `lock`, so a store may share one connection between tasks. Because `lock` already
/// serialises every call, the connection is opened without SQLite's own mutex
/// (`SQLITE_OPEN_NOMUTEX`), which would otherwise be taken again around each bind, step and
/// column read.
public final class SQLiteDatabase: @unchecked Sendable {
    public let path: String
    // `handle` and `statements` are protected by `lock`.
    private var handle: OpaquePointer?
    private var statements: [String: OpaquePointer] = [:]
    private let lock = NSRecursiveLock()

    /// Opens (creating if needed) the database at `path` in WAL mode. `busyTimeoutMs` makes
    /// concurrent writers from other processes wait instead of failing at once. `pageSize`
    /// (bytes, a power of two 512–65536) applies only to a file created here: SQLite fixes the
    /// page size when the first page is written, so an existing file keeps its own.
    public init(path: String, busyTimeoutMs: Int32 = 5_000, walMode: Bool = true, pageSize: Int? = nil) throws {
        self.path = path
        let dir = FilePaths.parent(of: path)
        if !dir.isEmpty { try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true) }
        var db: OpaquePointer?
        let rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil)
        guard rc == SQLITE_OK, let db else {
            let msg = db.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            sqlite3_close(db)
            throw SQLiteError(path: path, code: rc, message: msg)
        }
        handle = db
        sqlite3_busy_timeout(db, busyTimeoutMs)
        if let pageSize { try execute("PRAGMA page_size=\(pageSize)") }
        if walMode {
            try switchToWAL(busyTimeoutMs: busyTimeoutMs)
            try execute("PRAGMA synchronous=NORMAL")
        }
    }

    /// `PRAGMA journal_mode=WAL` needs an exclusive lock. When two processes open a new file at
    /// once (the App Group store's extension and app), SQLite answers one of them SQLITE_BUSY
    /// at once instead of calling the busy handler, because waiting could deadlock. Measured:
    /// 9 of 60 pairs of fresh opens failed "database is locked" with a 5 s busy timeout; with
    /// this retry, none of 80 triples. So wait and retry here, within the same busy timeout.
    private func switchToWAL(busyTimeoutMs: Int32) throws {
        let deadline = ContinuousClock.now + .milliseconds(Int(busyTimeoutMs))
        while true {
            do {
                try execute("PRAGMA journal_mode=WAL")
                return
            } catch let error as SQLiteError where error.code & 0xff == SQLITE_BUSY && ContinuousClock.now < deadline {
                usleep(2_000)
            }
        }
    }

    deinit { close() }

    public func close() {
        lock.withLock {
            for (_, s) in statements { sqlite3_finalize(s) }
            statements.removeAll()
            if let h = handle { sqlite3_close_v2(h) }
            handle = nil
        }
    }

    /// Runs one or more statements that take no parameters (schema, pragmas).
    public func execute(_ sql: String) throws {
        try lock.withLock {
            var err: UnsafeMutablePointer<CChar>?
            let rc = sqlite3_exec(try open(), sql, nil, nil, &err)
            if rc != SQLITE_OK {
                let msg = err.map { String(cString: $0) } ?? "error"
                sqlite3_free(err)
                throw SQLiteError(path: path, code: rc, message: msg)
            }
        }
    }

    /// Runs a statement with parameters; returns the number of rows changed.
    @discardableResult
    public func run(_ sql: String, _ params: [SQLiteValue] = []) throws -> Int {
        try lock.withLock {
            let stmt = try prepared(sql, params)
            defer { sqlite3_reset(stmt) }
            let rc = sqlite3_step(stmt)
            guard rc == SQLITE_DONE || rc == SQLITE_ROW else { throw error(rc) }
            return Int(sqlite3_changes(try open()))
        }
    }

    /// Runs a query and returns every row.
    public func query(_ sql: String, _ params: [SQLiteValue] = []) throws -> [SQLiteRow] {
        try lock.withLock {
            let stmt = try prepared(sql, params)
            defer { sqlite3_reset(stmt) }
            var rows: [SQLiteRow] = []
            while true {
                let rc = sqlite3_step(stmt)
                if rc == SQLITE_DONE { break }
                guard rc == SQLITE_ROW else { throw error(rc) }
                rows.append(SQLiteRow(statement: stmt))
            }
            return rows
        }
    }

    /// Runs `body` inside one transaction (BEGIN IMMEDIATE: takes the write lock up front so
    /// two processes never deadlock upgrading); rolls back if it throws.
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        try lock.withLock {
            try execute("BEGIN IMMEDIATE")
            do {
                let result = try body()
                try execute("COMMIT")
                return result
            } catch {
                try? execute("ROLLBACK")
                throw error
            }
        }
    }

    public var lastInsertRowID: Int64 { lock.withLock { handle.map { sqlite3_last_insert_rowid($0) } ?? 0 } }

    /// Runs `body` with the cached prepared statement for `sql`, the connection held for the
    /// whole body: for writing many rows in one transaction without a parameter array, an SQL
    /// lookup and a lock round trip per row (the metrics collector's writer, the relay's queue).
    public func withStatement<T>(_ sql: String, _ body: (inout SQLiteStatement) throws -> T) throws -> T {
        try lock.withLock {
            var statement = SQLiteStatement(handle: try prepared(sql, []), database: self)
            defer { sqlite3_reset(statement.handle) }
            return try body(&statement)
        }
    }

    fileprivate func stepError(_ rc: Int32) -> SQLiteError { error(rc) }

    private func open() throws -> OpaquePointer {
        guard let h = handle else { throw SQLiteError(path: path, code: SQLITE_MISUSE, message: "database is closed") }
        return h
    }

    private func error(_ rc: Int32) -> SQLiteError {
        SQLiteError(path: path, code: rc, message: handle.map { String(cString: sqlite3_errmsg($0)) } ?? "closed")
    }

    /// A cached prepared statement with `params` bound (1-based, in order).
    private func prepared(_ sql: String, _ params: [SQLiteValue]) throws -> OpaquePointer {
        let stmt: OpaquePointer
        if let cached = statements[sql] {
            stmt = cached
        } else {
            var s: OpaquePointer?
            let rc = sqlite3_prepare_v2(try open(), sql, -1, &s, nil)
            guard rc == SQLITE_OK, let s else { throw error(rc) }
            statements[sql] = s
            stmt = s
        }
        sqlite3_clear_bindings(stmt)
        for (i, p) in params.enumerated() {
            let idx = Int32(i + 1)
            let rc: Int32
            switch p {
            case .null: rc = sqlite3_bind_null(stmt, idx)
            case .integer(let v): rc = sqlite3_bind_int64(stmt, idx, v)
            case .real(let v): rc = sqlite3_bind_double(stmt, idx, v)
            case .text(let v):
                // The string's own UTF-8 bytes, not a NUL-terminated copy made for the call.
                var text = v
                rc = text.withUTF8 { bytes in
                    cpl_sqlite3_bind_text_transient(stmt, idx, UnsafeRawPointer(bytes.baseAddress)?.assumingMemoryBound(to: CChar.self), Int32(bytes.count))
                }
            case .blob(let v): rc = v.withUnsafeBytes { cpl_sqlite3_bind_blob_transient(stmt, idx, $0.baseAddress, Int32(v.count)) }
            }
            guard rc == SQLITE_OK else { throw error(rc) }
        }
        return stmt
    }
}

/// A prepared statement lent by `SQLiteDatabase.withStatement`: bind parameters (1-based), then
/// `insert()` or `run()`; valid only inside that call.
public struct SQLiteStatement {
    fileprivate let handle: OpaquePointer
    /// Unsafe (no reference count): a statement lives only inside its database's `withStatement`
    /// call, and an `unowned` reference cost a count update on every copy (every row).
    fileprivate unowned(unsafe) let database: SQLiteDatabase
    /// `stage`'s texts for the next `insertStaged`: their bytes, and each one's parameter, start
    /// and length in them (-1: NULL).
    fileprivate var stagedBytes: [UInt8] = []
    fileprivate var stagedTexts: [(index: Int32, start: Int, count: Int)] = []

    public func bind(_ index: Int32, _ value: Int64) throws { try check(sqlite3_bind_int64(handle, index, value)) }
    public func bind(_ index: Int32, _ value: Int?) throws {
        try check(value.map { sqlite3_bind_int64(handle, index, Int64($0)) } ?? sqlite3_bind_null(handle, index))
    }
    public func bind(_ index: Int32, _ value: Double?) throws {
        try check(value.map { sqlite3_bind_double(handle, index, $0) } ?? sqlite3_bind_null(handle, index))
    }
    public func bind(_ index: Int32, _ value: String?) throws {
        guard var text = value else { return try check(sqlite3_bind_null(handle, index)) }
        try check(text.withUTF8 { bytes in
            cpl_sqlite3_bind_text_transient(handle, index, UnsafeRawPointer(bytes.baseAddress)?.assumingMemoryBound(to: CChar.self), Int32(bytes.count))
        })
    }
    public func bind(_ index: Int32, _ value: [UInt8]) throws {
        try check(value.withUnsafeBytes { cpl_sqlite3_bind_blob_transient(handle, index, $0.baseAddress, Int32(value.count)) })
    }

    /// Binds `blob` at `index` and steps the statement once (an INSERT), like `bind` + `insert()`,
    /// without SQLite's own copy of the bytes: they are bound in place (SQLITE_STATIC) for this
    /// one step, which copies them into the page, and the parameter is set to NULL before
    /// `blob`'s memory can go away. For a large value per row (the collector's request bodies).
    @discardableResult
    public func insert(binding blob: [UInt8], at index: Int32) throws -> Int64 {
        try blob.withUnsafeBytes { bytes in
            try check(sqlite3_bind_blob(handle, index, bytes.baseAddress, Int32(bytes.count), nil))
            defer { sqlite3_bind_null(handle, index) }
            return try insert()
        }
    }

    /// Stages `text` (nil: NULL) as parameter `index` of the next `insertStaged`: its UTF-8 bytes
    /// are appended to one buffer that the statement keeps for every row of its `withStatement`
    /// call, and bound from there in place (SQLITE_STATIC) — no copy by SQLite (`bind(_:_: String?)`
    /// makes one, a malloc and a memcpy per value) and no closure per value. For rows written by
    /// the thousand (the collector's).
    public mutating func stage(_ index: Int32, _ text: String?) {
        guard let text else { return stagedTexts.append((index, 0, -1)) }
        let start = stagedBytes.count
        stagedBytes.append(contentsOf: text.utf8)
        stagedTexts.append((index, start, stagedBytes.count - start))
    }

    /// Binds the texts staged since the last insert and `blob` (at `blobIndex`), all in place, steps
    /// the statement once (an INSERT) and returns the new rowid, like `bind` + `insert()`: the step
    /// copies the bytes into the row, and every parameter bound here is set to NULL again before the
    /// staged bytes are reused or `blob`'s memory can go away.
    @discardableResult
    public mutating func insertStaged(blob: [UInt8]? = nil, at blobIndex: Int32 = 0) throws -> Int64 {
        defer { clearStagedTexts() }
        return try withStagedTextsBound {
            guard let blob else { return try insert() }
            return try insert(binding: blob, at: blobIndex)
        }
    }

    /// Steps the statement once (an INSERT), resets it for the next row and returns the new rowid.
    @discardableResult
    public func insert() throws -> Int64 {
        try step()
        return sqlite3_last_insert_rowid(sqlite3_db_handle(handle))
    }

    /// Binds the texts staged since the last step, steps the statement once (an UPDATE or
    /// DELETE) and returns the number of rows it changed, like `bind` + `run()`; the staged
    /// parameters are set to NULL again afterwards (as in `insertStaged`).
    @discardableResult
    public mutating func runStaged() throws -> Int {
        defer { clearStagedTexts() }
        return try withStagedTextsBound { try run() }
    }

    /// Steps the statement once (an UPDATE or DELETE), resets it for the next row and returns
    /// the number of rows it changed. Parameters stay bound: one bound once before a loop of
    /// rows serves every row.
    @discardableResult
    public func run() throws -> Int {
        try step()
        return Int(sqlite3_changes(sqlite3_db_handle(handle)))
    }

    /// Steps the statement through the rows it returns (a SELECT, its parameters bound), calling
    /// `body` with each, then resets it. The columns are read in place: no row of values is
    /// copied out first (`SQLiteDatabase.query`'s `SQLiteRow`).
    public func forEachRow(_ body: (SQLiteColumns) throws -> Void) throws {
        defer { sqlite3_reset(handle) }
        while true {
            let rc = sqlite3_step(handle)
            if rc == SQLITE_DONE { return }
            guard rc == SQLITE_ROW else { throw database.stepError(rc) }
            try body(SQLiteColumns(handle: handle))
        }
    }

    private func step() throws {
        let rc = sqlite3_step(handle)
        sqlite3_reset(handle)
        guard rc == SQLITE_DONE || rc == SQLITE_ROW else { throw database.stepError(rc) }
    }

    /// Binds the texts staged since the last step in place, runs `body` (which steps the
    /// statement once), then sets those parameters to NULL again: the step has copied the
    /// bytes into the row by then. The caller empties the staged buffer afterwards.
    private func withStagedTextsBound<T>(_ body: () throws -> T) throws -> T {
        try stagedBytes.withUnsafeBufferPointer { bytes throws -> T in
            defer { for t in stagedTexts { sqlite3_bind_null(handle, t.index) } }
            for t in stagedTexts {
                if t.count < 0 {
                    try check(sqlite3_bind_null(handle, t.index))
                } else if t.count > 0, let base = bytes.baseAddress {
                    try check(sqlite3_bind_text(handle, t.index, UnsafeRawPointer(base + t.start).assumingMemoryBound(to: CChar.self), Int32(t.count), nil))
                } else {
                    try check(cpl_sqlite3_bind_text_transient(handle, t.index, nil, 0))  // "" (a NULL pointer would bind NULL)
                }
            }
            return try body()
        }
    }

    /// Empties the staged texts for the next row (keeping the buffer's memory).
    private mutating func clearStagedTexts() {
        stagedBytes.removeAll(keepingCapacity: true)
        stagedTexts.removeAll(keepingCapacity: true)
    }

    private func check(_ rc: Int32) throws {
        if rc != SQLITE_OK { throw database.stepError(rc) }
    }
}

/// The current row of a statement `SQLiteStatement.forEachRow` steps through, read column by
/// column (0-based); valid only inside that call.
public struct SQLiteColumns {
    fileprivate let handle: OpaquePointer

    public func isNull(_ i: Int32) -> Bool { sqlite3_column_type(handle, i) == SQLITE_NULL }
    /// The column as an integer (0 when NULL).
    public func int64(_ i: Int32) -> Int64 { sqlite3_column_int64(handle, i) }
    public func int(_ i: Int32) -> Int? { isNull(i) ? nil : Int(sqlite3_column_int64(handle, i)) }
    public func string(_ i: Int32) -> String? {
        guard let text = sqlite3_column_text(handle, i) else { return nil }
        return String(decoding: UnsafeBufferPointer(start: text, count: Int(sqlite3_column_bytes(handle, i))), as: UTF8.self)
    }
}

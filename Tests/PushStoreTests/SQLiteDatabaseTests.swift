import XCTest
import TestSupport
@testable import PushStore

final class SQLiteDatabaseTests: XCTestCase {
    func testRoundTripsEveryValueKindThroughARealFile() throws {
        let dir = Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("t.sqlite").path
        let db = try SQLiteDatabase(path: path)
        try db.execute("CREATE TABLE t (i INTEGER, r REAL, s TEXT, b BLOB, n TEXT)")
        try db.run("INSERT INTO t VALUES (?, ?, ?, ?, ?)", [.integer(42), .real(0.5), .text("héllo"), .blob([0, 1, 255]), .null])
        let rows = try db.query("SELECT i, r, s, b, n FROM t")
        XCTAssertEqual(rows.count, 1)
        XCTAssertEqual(rows[0].int(0), 42)
        XCTAssertEqual(rows[0].double(1), 0.5)
        XCTAssertEqual(rows[0].string(2), "héllo")
        XCTAssertEqual(rows[0].blob(3), [0, 1, 255])
        XCTAssertEqual(rows[0].values[4], .null)
        let mode = try db.query("PRAGMA journal_mode")
        XCTAssertEqual(mode.first?.string(0), "wal")
    }

    /// Text is bound from the string's own bytes: an empty string stays text (not NULL), and
    /// small, large and non-ASCII strings keep every byte.
    func testTextKeepsEmptyAndLongStrings() throws {
        let dir = Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = try SQLiteDatabase(path: dir.appendingPathComponent("t.sqlite").path)
        try db.execute("CREATE TABLE t (k INTEGER, s TEXT)")
        let texts = ["", "a", "exactly15bytes!", String(repeating: "é", count: 3_000), "🙂 emoji"]
        for (k, text) in texts.enumerated() { try db.run("INSERT INTO t VALUES (?, ?)", [.int(k), .text(text)]) }
        let rows = try db.query("SELECT s, typeof(s), length(CAST(s AS BLOB)) FROM t ORDER BY k")
        XCTAssertEqual(rows.map { $0.string(0) }, texts)
        XCTAssertEqual(rows.map { $0.string(1) }, Array(repeating: "text", count: texts.count))
        XCTAssertEqual(rows.map { $0.int(2) }, texts.map { $0.utf8.count })
    }

    func testTransactionRollsBackWhenBodyThrows() throws {
        let dir = Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = try SQLiteDatabase(path: dir.appendingPathComponent("t.sqlite").path)
        try db.execute("CREATE TABLE t (v INTEGER)")
        struct Boom: Error {}
        XCTAssertThrowsError(try db.transaction {
            try db.run("INSERT INTO t VALUES (1)")
            throw Boom()
        })
        XCTAssertEqual(try db.query("SELECT COUNT(*) FROM t").first?.int(0), 0)
    }

    func testBadSQLNamesTheFile() throws {
        let dir = Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("t.sqlite").path
        let db = try SQLiteDatabase(path: path)
        XCTAssertThrowsError(try db.run("INSERT INTO missing VALUES (1)")) { error in
            XCTAssertTrue("\(error)".contains(path))
        }
    }

    /// `runStaged` and `run` return the rows each step changed; a parameter bound once before
    /// the loop serves every row, a staged one is NULL again after its step.
    func testStatementRunReturnsRowsChangedAndKeepsParametersBoundOnce() throws {
        let dir = Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = try SQLiteDatabase(path: dir.appendingPathComponent("t.sqlite").path)
        try db.execute("CREATE TABLE t (k INTEGER PRIMARY KEY, s TEXT, tag TEXT, done INTEGER NOT NULL DEFAULT 0)")
        for k in 1...3 { try db.run("INSERT INTO t (k) VALUES (?)", [.int(k)]) }
        let changed: [Int] = try db.withStatement("UPDATE t SET s = ?, tag = ?, done = 1 WHERE k = ? AND done = 0") { update in
            try update.bind(2, "batch")
            var changed: [Int] = []
            for (k, s) in [(1, "one"), (2, "two"), (1, "again"), (9, "none")] {
                update.stage(1, s)
                try update.bind(3, Int64(k))
                changed.append(try update.runStaged())
            }
            try update.bind(3, Int64(3))
            changed.append(try update.run())
            return changed
        }
        XCTAssertEqual(changed, [1, 1, 0, 0, 1])
        let rows = try db.query("SELECT k, s, tag FROM t ORDER BY k")
        XCTAssertEqual(rows.map { $0.string(1) }, ["one", "two", nil])
        XCTAssertEqual(rows.map { $0.string(2) }, ["batch", "batch", "batch"])
    }

    /// `forEachRow` reads every row in order, each column as stored (NULL as nil, text byte for
    /// byte), and leaves the statement ready to run again.
    func testForEachRowReadsColumnsInPlace() throws {
        let dir = Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = try SQLiteDatabase(path: dir.appendingPathComponent("t.sqlite").path)
        try db.execute("CREATE TABLE t (k INTEGER PRIMARY KEY, n INTEGER, s TEXT)")
        let texts: [String?] = ["", "héllo 🙂", nil, String(repeating: "x", count: 5_000)]
        for (k, text) in texts.enumerated() { try db.run("INSERT INTO t VALUES (?, ?, ?)", [.int(k), k == 2 ? .null : .int(k * 10), .text(text)]) }
        for _ in 0..<2 {
            var read: [(Int64, Int?, String?)] = []
            try db.withStatement("SELECT k, n, s FROM t WHERE k >= ? ORDER BY k") { select in
                try select.bind(1, Int64(0))
                try select.forEachRow { row in read.append((row.int64(0), row.int(1), row.string(2))) }
            }
            XCTAssertEqual(read.map(\.0), [0, 1, 2, 3])
            XCTAssertEqual(read.map(\.1), [0, 10, nil, 30])
            XCTAssertEqual(read.map(\.2), texts)
        }
    }
}

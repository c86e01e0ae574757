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
}

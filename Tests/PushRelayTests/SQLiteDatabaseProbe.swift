import PushStore

/// Reads a relay queue file through its own connection, as another process would.
struct SQLiteDatabaseProbe {
    let database: SQLiteDatabase
    init(path: String) throws { database = try SQLiteDatabase(path: path) }

    func targetCount(push: String) throws -> Int {
        try database.query("SELECT COUNT(*) FROM targets t JOIN pushes p ON p.row = t.push_row WHERE p.id = ?", [.text(push)])
            .first?.int(0) ?? 0
    }
}

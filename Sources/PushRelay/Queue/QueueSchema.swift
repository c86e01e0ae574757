import PushStore

/// The SQLite queue's file format: creates it, or converts a file an earlier version wrote.
enum QueueSchema {
    /// The current version (`PRAGMA user_version`).
    static let version = 2
    /// `targets.state` once a target has its final result (before: 0).
    static let finished = 2

    /// Makes `db` hold the current schema: new files get it; version 1 files are converted in
    /// one transaction (a crash during it leaves the version 1 file as it was).
    static func prepare(_ db: SQLiteDatabase) throws {
        let version = try db.query(QueueStatements.userVersion).first?.int(0) ?? 0
        if version >= Self.version { return }
        let existing = try db.query(QueueStatements.hasTargetsTable).first?.int(0) ?? 0
        if version == 0, existing > 0 {
            try db.transaction {
                try db.execute(QueueStatements.migrateFromVersion1)
                try db.execute(QueueStatements.schema)
            }
        } else {
            try db.execute(QueueStatements.schema)
        }
    }
}

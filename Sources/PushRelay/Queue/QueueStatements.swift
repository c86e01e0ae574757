/// Every SQL statement of `SQLitePushQueue`, in one place.
enum QueueStatements {
    /// Columns of `targets` after the row id, as version 2 stores them.
    private static let targetColumns = """
            push_row INTEGER NOT NULL,
            idx INTEGER NOT NULL,
            app TEXT NOT NULL,
            kind TEXT NOT NULL,
            value TEXT NOT NULL,
            environment TEXT,
            state INTEGER NOT NULL DEFAULT 0,
            ready_at REAL NOT NULL,
            attempts INTEGER NOT NULL DEFAULT 0,
            last_error TEXT,
            status TEXT,
            http_status INTEGER,
            reason TEXT,
            provider_id TEXT,
            token_invalid INTEGER,
            finished_at REAL
        """

    /// Version 2 (`PRAGMA user_version = 2`). `pushes`: one row per accepted push (its content
    /// once, and `first_target`: its targets have the ids `first_target ..< first_target +
    /// target_count`); `targets`: one row per (push, target), state 0 until its final result,
    /// then 2 with the result; `invalid_tokens`: the pruning feed. One index on `targets`: the
    /// final ones by app and time, which grows at its end only (results come in time order) and
    /// carries the token, so a token's results are read from it alone, newest first. (An index by
    /// token would take one insert at a random place per target: a campaign to the same devices
    /// again spreads its writes over the whole index. An index of the unfinished targets would
    /// cost each target an insert and a delete; they are read once, on open, by reading the
    /// table.) Claims are not stored (`TargetSchedule`).
    static let schema = """
        CREATE TABLE IF NOT EXISTS pushes (
            row INTEGER PRIMARY KEY,
            id TEXT NOT NULL UNIQUE,
            app TEXT NOT NULL,
            content BLOB NOT NULL,
            target_count INTEGER NOT NULL,
            accepted_at REAL NOT NULL,
            idempotency_key TEXT,
            fingerprint TEXT,
            sent INTEGER NOT NULL DEFAULT 0,
            failed INTEGER NOT NULL DEFAULT 0,
            first_target INTEGER
        );
        CREATE UNIQUE INDEX IF NOT EXISTS pushes_idempotency ON pushes(app, idempotency_key) WHERE idempotency_key IS NOT NULL;
        CREATE TABLE IF NOT EXISTS targets (
            id INTEGER PRIMARY KEY,
        \(targetColumns)
        );
        CREATE INDEX IF NOT EXISTS targets_finished ON targets(app, finished_at, value) WHERE state = 2;
        CREATE TABLE IF NOT EXISTS invalid_tokens (
            app TEXT NOT NULL,
            kind TEXT NOT NULL,
            token TEXT NOT NULL,
            reason TEXT NOT NULL,
            push_id TEXT NOT NULL,
            reported_at REAL NOT NULL
        );
        CREATE INDEX IF NOT EXISTS invalid_tokens_of_app ON invalid_tokens(app, reported_at);
        PRAGMA user_version = 2;
        """

    static let userVersion = "PRAGMA user_version"
    static let hasTargetsTable = "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = 'targets'"

    /// Version 1 (no `user_version`) → 2, in one transaction: the targets are copied in
    /// (push, index) order, so each push's ids are consecutive; claims become waiting (a
    /// restart makes them ready anyway); the lease columns and the old indexes go.
    static let migrateFromVersion1 = """
        ALTER TABLE pushes ADD COLUMN first_target INTEGER;
        CREATE TABLE targets_v2 (
            id INTEGER PRIMARY KEY,
        \(targetColumns)
        );
        INSERT INTO targets_v2 (push_row, idx, app, kind, value, environment, state, ready_at, attempts, last_error,
                                status, http_status, reason, provider_id, token_invalid, finished_at)
            SELECT push_row, idx, app, kind, value, environment, CASE WHEN state = 2 THEN 2 ELSE 0 END, ready_at, attempts, last_error,
                   status, http_status, reason, provider_id, token_invalid, finished_at
            FROM targets ORDER BY push_row, idx;
        DROP TABLE targets;
        ALTER TABLE targets_v2 RENAME TO targets;
        CREATE INDEX migrate_push_row ON targets(push_row);
        UPDATE pushes SET first_target = (SELECT MIN(id) FROM targets WHERE push_row = pushes.row);
        DROP INDEX migrate_push_row;
        """

    /// Params: after id, limit. A page of the table in id order (read whole on open: about
    /// 0.15–0.25 s per million targets).
    static let unfinishedTargets = "SELECT id, ready_at FROM targets WHERE id > ? AND state < 2 ORDER BY id LIMIT ?"
    static let countTargets = "SELECT COUNT(*) FROM targets"
    static let lastTargetID = "SELECT MAX(id) FROM targets"
    static let pushByIdempotencyKey = "SELECT id, fingerprint, target_count, accepted_at FROM pushes WHERE app = ? AND idempotency_key = ?"
    static let insertPush = """
        INSERT INTO pushes (id, app, content, target_count, accepted_at, idempotency_key, fingerprint, first_target) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
        """
    static let insertTarget = "INSERT INTO targets (id, push_row, idx, app, kind, value, environment, ready_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
    /// Params: first id, last id (inclusive).
    static let claimedRows = "SELECT id, push_row, idx, kind, value, environment, attempts FROM targets WHERE id BETWEEN ? AND ? ORDER BY id"
    static let pushContent = "SELECT id, app, content FROM pushes WHERE row = ?"
    /// Only a target without a final result takes one (contract rule 5): one row changed or none.
    static let completeTarget = """
        UPDATE targets SET state = 2, status = ?, http_status = ?, reason = ?, provider_id = ?, token_invalid = ?, attempts = ?,
            finished_at = ?, last_error = NULL
        WHERE id = ? AND state < 2
        """
    /// Params: sent, failed, push id. Counts a batch's results of one push; returns whether they
    /// include its last (only first final results are counted, so that is true exactly once).
    static let countResults = "UPDATE pushes SET sent = sent + ?, failed = failed + ? WHERE id = ? RETURNING sent + failed >= target_count"
    static let insertInvalidToken = "INSERT INTO invalid_tokens (app, kind, token, reason, push_id, reported_at) VALUES (?, ?, ?, ?, ?, ?)"
    /// Params: ready at, attempts, last error, id.
    static let rescheduleTarget = "UPDATE targets SET ready_at = ?, attempts = ?, last_error = ? WHERE id = ? AND state < 2"
    static let pushByID = "SELECT row, app, accepted_at, target_count, sent, failed, first_target FROM pushes WHERE id = ?"
    /// Params: first id, end id (exclusive): a push's targets.
    static let targetsInRange = """
        SELECT id, idx, kind, value, environment, state, attempts, last_error,
               status, http_status, reason, provider_id, token_invalid, attempts, finished_at
        FROM targets WHERE id >= ? AND id < ? ORDER BY id
        """
    private static let deliveryColumns = """
        SELECT p.id, t.idx, t.kind, t.value, t.environment,
               t.status, t.http_status, t.reason, t.provider_id, t.token_invalid, t.attempts, t.finished_at
        FROM targets t JOIN pushes p ON p.row = t.push_row
        """
    static let deliveriesOfApp = deliveryColumns + " WHERE t.state = 2 AND t.app = ? AND t.finished_at >= ? ORDER BY t.finished_at DESC LIMIT ?"
    static let deliveriesOfToken = deliveryColumns
        + " WHERE t.app = ? AND t.value = ? AND t.state = 2 AND t.finished_at >= ? ORDER BY t.finished_at DESC LIMIT ?"
    static let invalidTokensOfApp = """
        SELECT kind, token, reason, push_id, reported_at FROM invalid_tokens
        WHERE app = ? AND reported_at >= ? ORDER BY reported_at DESC LIMIT ?
        """
}

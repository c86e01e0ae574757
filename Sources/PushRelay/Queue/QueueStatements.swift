

/// Every SQL statement of `SQLitePushQueue`, in one place.
enum QueueStatements {
    /// `pushes`: one row per accepted push (its content once); `targets`: one row per
    /// (push, target) with its state, lease and final result; `invalid_tokens`: the pruning feed.
    /// Partial indexes keep each hot query on a small index: ready targets (state 0), claimed
    /// ones by lease end (state 1), final ones per app/token (state 2).
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
            failed INTEGER NOT NULL DEFAULT 0
        );
        CREATE UNIQUE INDEX IF NOT EXISTS pushes_idempotency ON pushes(app, idempotency_key) WHERE idempotency_key IS NOT NULL;
        CREATE TABLE IF NOT EXISTS targets (
            id INTEGER PRIMARY KEY,
            push_row INTEGER NOT NULL,
            idx INTEGER NOT NULL,
            app TEXT NOT NULL,
            kind TEXT NOT NULL,
            value TEXT NOT NULL,
            environment TEXT,
            state INTEGER NOT NULL DEFAULT 0,
            ready_at REAL NOT NULL,
            lease_until REAL,
            consumer TEXT,
            attempts INTEGER NOT NULL DEFAULT 0,
            last_error TEXT,
            status TEXT,
            http_status INTEGER,
            reason TEXT,
            provider_id TEXT,
            token_invalid INTEGER,
            finished_at REAL
        );
        CREATE INDEX IF NOT EXISTS targets_of_push ON targets(push_row, idx);
        CREATE INDEX IF NOT EXISTS targets_ready ON targets(ready_at, id) WHERE state = 0;
        CREATE INDEX IF NOT EXISTS targets_claimed ON targets(lease_until) WHERE state = 1;
        CREATE INDEX IF NOT EXISTS targets_finished ON targets(app, finished_at) WHERE state = 2;
        CREATE INDEX IF NOT EXISTS targets_finished_token ON targets(app, value, finished_at) WHERE state = 2;
        CREATE TABLE IF NOT EXISTS invalid_tokens (
            app TEXT NOT NULL,
            kind TEXT NOT NULL,
            token TEXT NOT NULL,
            reason TEXT NOT NULL,
            push_id TEXT NOT NULL,
            reported_at REAL NOT NULL
        );
        CREATE INDEX IF NOT EXISTS invalid_tokens_of_app ON invalid_tokens(app, reported_at);
        """

    static let countByState = "SELECT state, COUNT(*) FROM targets GROUP BY state"
    static let pushByIdempotencyKey = "SELECT id, fingerprint, target_count, accepted_at FROM pushes WHERE app = ? AND idempotency_key = ?"
    static let insertPush = """
        INSERT INTO pushes (id, app, content, target_count, accepted_at, idempotency_key, fingerprint) VALUES (?, ?, ?, ?, ?, ?, ?)
        """
    static let insertTarget = "INSERT INTO targets (push_row, idx, app, kind, value, environment, ready_at) VALUES (?, ?, ?, ?, ?, ?, ?)"
    /// Params: now (new ready time), now.
    static let expireLeases = "UPDATE targets SET state = 0, ready_at = ?, consumer = NULL WHERE state = 1 AND lease_until < ?"
    /// Params: lease until, consumer, now, limit.
    static let claim = """
        UPDATE targets SET state = 1, lease_until = ?, consumer = ?
        WHERE id IN (SELECT id FROM targets WHERE state = 0 AND ready_at <= ? ORDER BY ready_at, id LIMIT ?)
        RETURNING id, push_row, idx, kind, value, environment, attempts
        """
    static let pushContent = "SELECT id, app, content FROM pushes WHERE row = ?"
    /// Only a target without a final result takes one (contract rule 5). Returns whether it was
    /// claimed: only a claim sets `consumer`, and this statement leaves it as it was.
    static let completeTarget = """
        UPDATE targets SET state = 2, status = ?, http_status = ?, reason = ?, provider_id = ?, token_invalid = ?, attempts = ?,
            finished_at = ?, lease_until = NULL, last_error = NULL
        WHERE id = ? AND state < 2
        RETURNING consumer IS NOT NULL
        """
    /// Params: sent, failed, push id. Counts a batch's results of one push; returns whether they
    /// include its last (only first final results are counted, so that is true exactly once).
    static let countResults = "UPDATE pushes SET sent = sent + ?, failed = failed + ? WHERE id = ? RETURNING sent + failed >= target_count"
    static let insertInvalidToken = "INSERT INTO invalid_tokens (app, kind, token, reason, push_id, reported_at) VALUES (?, ?, ?, ?, ?, ?)"
    static let rescheduleTarget = """
        UPDATE targets SET state = 0, ready_at = ?, attempts = ?, last_error = ?, lease_until = NULL, consumer = NULL
        WHERE id = ? AND state = 1
        """
    static let releaseAllClaims = "UPDATE targets SET state = 0, ready_at = ?, lease_until = NULL, consumer = NULL WHERE state = 1"
    static let pushByID = "SELECT row, app, accepted_at, target_count, sent, failed FROM pushes WHERE id = ?"
    static let targetsOfPush = """
        SELECT idx, kind, value, environment, state, attempts, last_error,
               status, http_status, reason, provider_id, token_invalid, attempts, finished_at
        FROM targets WHERE push_row = ? ORDER BY idx
        """
    private static let deliveryColumns = """
        SELECT p.id, t.idx, t.kind, t.value, t.environment,
               t.status, t.http_status, t.reason, t.provider_id, t.token_invalid, t.attempts, t.finished_at
        FROM targets t JOIN pushes p ON p.row = t.push_row
        """
    static let deliveriesOfApp = deliveryColumns + " WHERE t.state = 2 AND t.app = ? AND t.finished_at >= ? ORDER BY t.finished_at DESC LIMIT ?"
    static let deliveriesOfToken = deliveryColumns
        + " WHERE t.state = 2 AND t.app = ? AND t.value = ? AND t.finished_at >= ? ORDER BY t.finished_at DESC LIMIT ?"
    static let invalidTokensOfApp = """
        SELECT kind, token, reason, push_id, reported_at FROM invalid_tokens
        WHERE app = ? AND reported_at >= ? ORDER BY reported_at DESC LIMIT ?
        """
    static let nextReady = "SELECT (SELECT MIN(ready_at) FROM targets WHERE state = 0), (SELECT MIN(lease_until) FROM targets WHERE state = 1)"
}

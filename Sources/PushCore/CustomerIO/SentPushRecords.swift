/// The gateway emulator's record of every push: the SQLite table `pushes` (docs/gateway.md).
/// The gateway writes it; the metrics report reads what was sent from it. One schema, one place.
public enum SentPushRecords {
    public static let table = "pushes"

    /// The table and its index, as the gateway creates them.
    public static let schema = """
    CREATE TABLE IF NOT EXISTS pushes (
      id INTEGER PRIMARY KEY,
      received_at REAL NOT NULL,
      service TEXT NOT NULL,
      token TEXT,
      device TEXT,
      topic TEXT,
      push_type TEXT,
      message_id TEXT,
      status INTEGER NOT NULL,
      reason TEXT,
      delivery_id TEXT,
      headers TEXT NOT NULL,
      payload TEXT NOT NULL
    );
    CREATE INDEX IF NOT EXISTS pushes_delivery_id ON pushes(delivery_id);
    """

    /// One row per table named `pushes` (none in a file that is not the gateway's).
    public static let tableExistsQuery = "SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'pushes'"

    /// The Customer.io pushes the gateway accepted (status 200, a `CIO-Delivery-ID`), first
    /// acceptance per delivery id: columns delivery id, received at (Unix seconds), token.
    public static let acceptedDeliveriesQuery = """
    SELECT delivery_id, MIN(received_at), MIN(token) FROM pushes
    WHERE delivery_id IS NOT NULL AND status = 200 GROUP BY delivery_id ORDER BY MIN(id)
    """
}

import Foundation
import PushCore
import PushStore

/// Reads what was sent from the gateway emulator's SQLite file, through PushCore's
/// `SentPushRecords` (the schema the gateway writes). It relies on four columns of
/// the gateway's `pushes` table (docs/metrics.md, "What the report reads from the gateway"):
/// `delivery_id` (CIO-Delivery-ID, null for non-Customer.io pushes), `status` (200 = accepted),
/// `received_at` (Unix seconds) and `token`.
public enum GatewayPushReader {
    public static func acceptedPushes(databasePath: String) throws -> [SentPush] {
        let db = try SQLiteDatabase(path: databasePath)
        defer { db.close() }
        let tables = try db.query(SentPushRecords.tableExistsQuery)
        guard !tables.isEmpty else { throw GatewayRecordsError.noPushesTable(path: databasePath) }
        return try db.query(SentPushRecords.acceptedDeliveriesQuery).map { row in
            SentPush(deliveryID: row.string(0) ?? "", sentAt: Date(timeIntervalSince1970: row.double(1) ?? 0), token: row.string(2))
        }
    }
}

public enum GatewayRecordsError: Error, Sendable, CustomStringConvertible {
    case noPushesTable(path: String)
    public var description: String {
        switch self {
        case .noPushesTable(let path):
            return "\(path): no 'pushes' table — is this the gateway's database? (pushlab serve --db PATH writes it)"
        }
    }
}

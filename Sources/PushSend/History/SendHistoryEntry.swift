import Foundation
import PushStore

/// One row of the history.
public struct SendHistoryEntry: Sendable, Hashable, Encodable {
    public var id: Int
    public var sentAt: Date
    public var provider: String
    public var target: String
    public var messageID: String?
    public var status: Int?
    public var outcome: String
    public var reason: String?
    public var detail: String?
    public var timestamp: Int64?
    public var attempts: Int
    public var latencyMs: Double
    public var endpoint: String?
    public var batch: String?
    /// `fid`, `token`, `topic` or `condition` (FCM's target field); `token` for APNs.
    public var targetKind: String

    enum CodingKeys: String, CodingKey {
        case id, sentAt = "sent_at", provider, target, messageID = "message_id", status, outcome, reason, detail, timestamp
        case attempts, latencyMs = "latency_ms", endpoint, batch, targetKind = "target_kind"
    }

    /// JSON for `pushlab history --json`: snake_case keys, `sent_at` and APNs's `timestamp` (when
    /// the token stopped being valid) as ISO 8601, nulls kept.
    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        try c.encode(id, forKey: .id)
        try c.encode(formatter.string(from: sentAt), forKey: .sentAt)
        try c.encode(provider, forKey: .provider)
        try c.encode(target, forKey: .target)
        try c.encode(messageID, forKey: .messageID)
        try c.encode(status, forKey: .status)
        try c.encode(outcome, forKey: .outcome)
        try c.encode(reason, forKey: .reason)
        try c.encode(detail, forKey: .detail)
        try c.encode(timestamp.map { formatter.string(from: Date(timeIntervalSince1970: Double($0) / 1000)) }, forKey: .timestamp)
        try c.encode(attempts, forKey: .attempts)
        try c.encode((latencyMs * 1000).rounded() / 1000, forKey: .latencyMs)
        try c.encode(endpoint, forKey: .endpoint)
        try c.encode(batch, forKey: .batch)
        try c.encode(targetKind, forKey: .targetKind)
    }

    init(row: SQLiteRow) {
        id = row.int(0) ?? 0
        sentAt = Date(timeIntervalSince1970: row.double(1) ?? 0)
        provider = row.string(2) ?? ""
        target = row.string(3) ?? ""
        messageID = row.string(4)
        status = row.int(5)
        outcome = row.string(6) ?? ""
        reason = row.string(7)
        detail = row.string(8)
        timestamp = row.int(9).map(Int64.init)
        attempts = row.int(10) ?? 0
        latencyMs = row.double(11) ?? 0
        endpoint = row.string(12)
        batch = row.string(13)
        targetKind = row.string(14) ?? "token"
    }
}

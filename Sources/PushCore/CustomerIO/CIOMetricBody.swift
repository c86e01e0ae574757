import Foundation

/// The bodies of the Customer.io metric requests (docs/specs/device-side.md §3 and §4): the one
/// definition the emulated devices write and the collector (`MetricRequestParser`) reads. The
/// Android SDK prints the same `track` call with its own serializer (`AndroidSDKContract`), from
/// these key names.
public enum CIOMetricBody {
    /// The CDP event that carries every push metric.
    public static let deliveryEvent = "Report Delivery Event"

    /// Keys of a CDP `track` call: the `/v1/track` body and each `/v1/b` item.
    public enum TrackKey {
        public static let type = "type"
        public static let event = "event"
        public static let properties = "properties"
        public static let anonymousId = "anonymousId"
        public static let userId = "userId"
        public static let timestamp = "timestamp"
        public static let messageId = "messageId"
        /// Inside `properties`.
        public static let metric = "metric"
        public static let deliveryId = "deliveryId"
        public static let recipient = "recipient"
    }

    /// Keys of the `/v1/b` envelope.
    public enum BatchKey {
        public static let batch = "batch"
        public static let sentAt = "sentAt"
        public static let writeKey = "writeKey"
    }

    /// Keys of the legacy `/push/events` body (SDK 1.x/2.x).
    public enum LegacyKey {
        public static let deliveryID = "delivery_id"
        public static let deviceID = "device_id"
        public static let event = "event"
        public static let timestamp = "timestamp"
    }

    /// `/v1/track` as the 4.x Notification Service Extension sends `delivered`: the delivery id as
    /// `anonymousId`, no timestamp. `messageId` is pushlab's improved mode (`dedupKey`), so a retry,
    /// a second extension run and launch recovery can be told apart from new metrics.
    public static func track(_ metric: CIOMetric = .delivered, deliveryID: String, recipient: String,
                             messageId: String? = nil) -> JSONValue {
        var members = [
            JSONMember(key: TrackKey.anonymousId, value: .string(deliveryID)),
            JSONMember(key: TrackKey.event, value: .string(deliveryEvent)),
            JSONMember(key: TrackKey.properties, value: properties(metric, deliveryID: deliveryID, recipient: recipient)),
        ]
        if let messageId { members.append(JSONMember(key: TrackKey.messageId, value: .string(messageId))) }
        return .object(JSONObject(members))
    }

    /// One `/v1/b` item as the host app's event pipeline queues it (keys in sorted order, as the
    /// SDK's JSON encoder writes them). `userId` is left out until the app identifies someone.
    public static func batchItem(_ metric: CIOMetric, deliveryID: String, recipient: String, anonymousId: String,
                                 userId: String?, timestamp: Date, messageId: String) -> JSONValue {
        var members = [
            JSONMember(key: TrackKey.anonymousId, value: .string(anonymousId)),
            JSONMember(key: TrackKey.event, value: .string(deliveryEvent)),
            JSONMember(key: TrackKey.messageId, value: .string(messageId)),
            JSONMember(key: TrackKey.properties, value: .object(JSONObject([
                JSONMember(key: TrackKey.deliveryId, value: .string(deliveryID)),
                JSONMember(key: TrackKey.metric, value: .string(metric.rawValue)),
                JSONMember(key: TrackKey.recipient, value: .string(recipient)),
            ]))),
            JSONMember(key: TrackKey.timestamp, value: .string(ISO8601Timestamp.format(timestamp))),
            JSONMember(key: TrackKey.type, value: "track"),
        ]
        if let userId { members.append(JSONMember(key: TrackKey.userId, value: .string(userId))) }
        return .object(JSONObject(members))
    }

    /// The `/v1/b` envelope around `items`.
    public static func batch(_ items: [JSONValue], sentAt: Date, writeKey: String) -> JSONValue {
        .object(JSONObject([
            JSONMember(key: BatchKey.batch, value: .array(JSONArray(items))),
            JSONMember(key: BatchKey.sentAt, value: .string(ISO8601Timestamp.format(sentAt))),
            JSONMember(key: BatchKey.writeKey, value: .string(writeKey)),
        ]))
    }

    /// The legacy `/push/events` body; `timestamp` in whole Unix seconds.
    public static func legacy(_ metric: CIOMetric = .delivered, deliveryID: String, deviceToken: String, timestamp: Date) -> JSONValue {
        .object(JSONObject([
            JSONMember(key: LegacyKey.deliveryID, value: .string(deliveryID)),
            JSONMember(key: LegacyKey.deviceID, value: .string(deviceToken)),
            JSONMember(key: LegacyKey.event, value: .string(metric.rawValue)),
            JSONMember(key: LegacyKey.timestamp, value: .number(JSONNumber(Int(timestamp.timeIntervalSince1970.rounded(.down))))),
        ]))
    }

    /// pushlab's improved mode's stable `messageId` for a metric: `delivered-<delivery id>`.
    public static func dedupKey(deliveryID: String, metric: CIOMetric = .delivered) -> String { "\(metric.rawValue)-\(deliveryID)" }

    /// `properties` of the NSE's `track` call, in the 4.x NSE's order.
    private static func properties(_ metric: CIOMetric, deliveryID: String, recipient: String) -> JSONValue {
        .object(JSONObject([
            JSONMember(key: TrackKey.recipient, value: .string(recipient)),
            JSONMember(key: TrackKey.metric, value: .string(metric.rawValue)),
            JSONMember(key: TrackKey.deliveryId, value: .string(deliveryID)),
        ]))
    }
}

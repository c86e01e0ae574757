import Foundation
import PushCore

/// One push metric queued in the host app's event pipeline (docs/specs/device-side.md §3: the CDP
/// `track` call that the SDK batches to `/v1/b`, written by `CIOMetricBody.batchItem`). Values are
/// captured when the event is queued: a recovered `delivered` event keeps its original timestamp
/// (§4), an `opened` event gets the tap time.
public struct PipelineEvent: Sendable, Hashable, Codable {
    /// Unique per event; the collector deduplicates on it.
    public var messageId: String
    public var metric: CIOMetric
    /// The push's `CIO-Delivery-ID`.
    public var deliveryID: String
    /// The device token the push was sent to (`CIO-Delivery-Token`).
    public var recipient: String
    public var timestamp: Date
    public var anonymousId: String
    /// The identified profile, when the app has identified one.
    public var userId: String?

    public init(messageId: String = UUID().uuidString, metric: CIOMetric, deliveryID: String, recipient: String,
                timestamp: Date, anonymousId: String, userId: String? = nil) {
        self.messageId = messageId
        self.metric = metric
        self.deliveryID = deliveryID
        self.recipient = recipient
        self.timestamp = timestamp
        self.anonymousId = anonymousId
        self.userId = userId
    }

    /// The CDP event name (`Report Delivery Event`).
    public var event: String { CIOMetricBody.deliveryEvent }
    /// The `track` call's properties, as sent.
    public var properties: [String: String] {
        [CIOMetricBody.TrackKey.metric: metric.rawValue, CIOMetricBody.TrackKey.deliveryId: deliveryID,
         CIOMetricBody.TrackKey.recipient: recipient]
    }
}

extension PipelineEvent {
    /// A push metric event: `delivered` (recovered from the App Group store, original timestamp)
    /// or `opened` (at tap). `recipient` is the device token the push was sent to.
    public static func deliveryMetric(_ metric: CIOMetric, deliveryID: String, recipient: String,
                                      timestamp: Date, identity: PipelineIdentity,
                                      messageId: String = UUID().uuidString) -> PipelineEvent {
        PipelineEvent(messageId: messageId, metric: metric, deliveryID: deliveryID, recipient: recipient,
                      timestamp: timestamp, anonymousId: identity.anonymousId, userId: identity.userId)
    }
}

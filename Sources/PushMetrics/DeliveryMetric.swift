import Foundation
import PushCore

/// One metric as a client reported it, after validation.
public struct ReportedMetric: Sendable, Equatable {
    public var route: CIOMetricRoute
    public var deliveryID: String
    public var metric: CIOMetric
    /// The delivery token (`properties.recipient`) or, on the legacy route, the device token.
    public var recipient: String?
    /// The event's own time when the client sent one (`timestamp`), else nil.
    public var originalTimestamp: Date?
    /// `timestamp` exactly as sent (ISO 8601 text or Unix seconds), for the record.
    public var originalTimestampText: String?
    /// Position inside a `/v1/b` batch; nil on single-event routes.
    public var batchIndex: Int?

    public init(route: CIOMetricRoute, deliveryID: String, metric: CIOMetric, recipient: String?, originalTimestamp: Date? = nil,
                originalTimestampText: String? = nil, batchIndex: Int? = nil) {
        self.route = route
        self.deliveryID = deliveryID
        self.metric = metric
        self.recipient = recipient
        self.originalTimestamp = originalTimestamp
        self.originalTimestampText = originalTimestampText
        self.batchIndex = batchIndex
    }

    /// The key duplicates are counted by: one delivery id, one metric.
    public var deduplicationKey: MetricKey { MetricKey(deliveryID: deliveryID, metric: metric) }
}

/// One delivery id and one metric: what a duplicate repeats. Hashes the id's own storage (no
/// string built per metric on the hand-over).
public struct MetricKey: Hashable, Sendable {
    public var deliveryID: String
    public var metric: CIOMetric

    public init(deliveryID: String, metric: CIOMetric) {
        self.deliveryID = deliveryID
        self.metric = metric
    }
}

/// A metric as the collector stored it.
public struct StoredMetric: Sendable, Equatable {
    public var id: Int64
    public var requestID: Int64
    public var receivedAt: Date
    public var reported: ReportedMetric
    /// True when an earlier row had the same delivery id and metric.
    public var isDuplicate: Bool
    public var userAgent: String?

    public init(id: Int64, requestID: Int64, receivedAt: Date, reported: ReportedMetric, isDuplicate: Bool, userAgent: String?) {
        self.id = id
        self.requestID = requestID
        self.receivedAt = receivedAt
        self.reported = reported
        self.isDuplicate = isDuplicate
        self.userAgent = userAgent
    }
}

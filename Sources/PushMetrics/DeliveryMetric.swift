import Foundation

/// The three ingest routes a Customer.io SDK reports metrics to (docs/specs/device-side.md §3).
public enum MetricRoute: String, Sendable, Codable, CaseIterable {
    /// `delivered` from the 4.x Notification Service Extension, one request per metric.
    case track = "/v1/track"
    /// The 4.x host app's event pipeline: batches of events (opened; delivered recovered at launch).
    case batch = "/v1/b"
    /// Legacy SDKs (1.x/2.x): one event per request.
    case legacyEvents = "/push/events"

    public var path: String { rawValue }

    /// The SDK generation and component that uses the route.
    public var sdkMode: String {
        switch self {
        case .track: return "cio-4 NSE"
        case .batch: return "cio-4 pipeline"
        case .legacyEvents: return "legacy"
        }
    }

    /// The SDK family, for reports that group the two 4.x routes.
    public var sdkFamily: String { self == .legacyEvents ? "legacy" : "cio-4" }
}

/// The push metrics the Customer.io SDKs send (the SDK's `Metric` enum).
public enum MetricName: String, Sendable, Codable, CaseIterable {
    case delivered
    case opened
    case converted
    case clicked
}

/// One metric as a client reported it, after validation.
public struct ReportedMetric: Sendable, Equatable {
    public var route: MetricRoute
    public var deliveryID: String
    public var metric: MetricName
    /// The delivery token (`properties.recipient`) or, on the legacy route, the device token.
    public var recipient: String?
    /// The event's own time when the client sent one (`timestamp`), else nil.
    public var originalTimestamp: Date?
    /// `timestamp` exactly as sent (ISO 8601 text or Unix seconds), for the record.
    public var originalTimestampText: String?
    /// Position inside a `/v1/b` batch; nil on single-event routes.
    public var batchIndex: Int?

    public init(route: MetricRoute, deliveryID: String, metric: MetricName, recipient: String?, originalTimestamp: Date? = nil,
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
    public var deduplicationKey: String { "\(deliveryID)\u{1F}\(metric.rawValue)" }
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

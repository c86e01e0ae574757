import Foundation
import PushCore
import PushStore

/// One request as the collector recorded it: accepted ones with their metrics, refused ones
/// (401/400, injected faults) with the reason — nothing a client sent is silently dropped.
public struct MetricRequestRecord: Sendable, Equatable {
    public var receivedAt: Date
    public var route: CIOMetricRoute
    /// The status answered; 0 when the stream or connection was dropped by a fault.
    public var status: Int
    /// The rejection code or `fault:…`; nil when accepted.
    public var error: String?
    public var ignoredEvents: Int
    public var userAgent: String?
    public var httpVersion: String?
    public var remoteAddress: String?
    public var body: [UInt8]
    /// The metrics stored from it, each with whether it repeats an earlier (delivery id, metric).
    public var metrics: [(ReportedMetric, isDuplicate: Bool)]

    public init(receivedAt: Date, route: CIOMetricRoute, status: Int, error: String? = nil, ignoredEvents: Int = 0,
                userAgent: String? = nil, httpVersion: String? = nil, remoteAddress: String? = nil, body: [UInt8],
                metrics: [(ReportedMetric, isDuplicate: Bool)] = []) {
        self.receivedAt = receivedAt
        self.route = route
        self.status = status
        self.error = error
        self.ignoredEvents = ignoredEvents
        self.userAgent = userAgent
        self.httpVersion = httpVersion
        self.remoteAddress = remoteAddress
        self.body = body
        self.metrics = metrics
    }

    public static func == (a: MetricRequestRecord, b: MetricRequestRecord) -> Bool {
        a.receivedAt == b.receivedAt && a.route == b.route && a.status == b.status && a.error == b.error
            && a.ignoredEvents == b.ignoredEvents && a.userAgent == b.userAgent && a.body == b.body
            && a.metrics.map(\.0) == b.metrics.map(\.0) && a.metrics.map(\.1) == b.metrics.map(\.1)
    }
}

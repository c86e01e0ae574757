import Foundation
import PushCore

/// What the collector saw, per delivery id and in total, with the rates of docs/metrics.md.
/// Built from the collector's store (and the gateway's records when given); the CLI prints
/// it (`pushlab report`) and the simulator reads it as a value.
public struct MetricsReport: Sendable, Codable, Equatable {
    public var generatedAt: Date
    /// A delivered metric counts as recovered at launch when it arrived through `/v1/b` (the
    /// 4.x pipeline, which sends `delivered` only when recovering from the App Group store,
    /// docs/specs/device-side.md §4) or when its own timestamp is older than its receive time by more
    /// than this many seconds.
    public var recoveryThresholdSeconds: Double
    /// True when `sent` counts come from the gateway's records.
    public var hasSentRecords: Bool
    public var totals: Summary
    /// One row per route, in `CIOMetricRoute` order; delivered and opened ids are attributed to
    /// the route of their first metric, so the rows add up to the totals.
    public var byRoute: [Summary]
    /// `cio-4` (both /v1 routes) and `legacy`.
    public var bySDK: [Summary]
    /// `ios`, `android` and `unknown`, by the User-Agent of the request that carried each
    /// metric (`MetricPlatform`); delivery ids are attributed to the platform of their first
    /// metric of each kind.
    public var byPlatform: [Summary]
    public var deliveries: [Delivery]
    /// Requests by route and answered status (rejections and injected faults included).
    public var requests: [RequestOutcomeCount]

    public struct Summary: Sendable, Codable, Equatable {
        /// `total`, a route path, or an SDK family.
        public var group: String
        /// The SDK mode label of a route row (`cio-4 NSE`, `cio-4 pipeline`, `legacy`).
        public var sdkMode: String?
        /// Delivery ids the gateway accepted; nil without gateway records.
        public var sent: Int?
        /// Metric rows stored (duplicates included).
        public var metricsReceived: Int
        /// Delivery ids with at least one `delivered`.
        public var delivered: Int
        /// … whose first `delivered` arrived live (from the extension).
        public var deliveredLive: Int
        /// … whose first `delivered` was recovered at launch.
        public var recoveredAtLaunch: Int
        /// Delivery ids with at least one `opened`.
        public var opened: Int
        /// Sent delivery ids with no `delivered` (total row only; nil without gateway records).
        public var lost: Int?
        /// Rows repeating an earlier (delivery id, metric).
        public var duplicates: Int
        /// Delivery ids with at least one duplicate row.
        public var duplicatedDeliveries: Int
        /// Delivered ids the gateway never accepted (nil without gateway records).
        public var notSent: Int?
        public var deliveryRate: Double?
        public var openRate: Double?
        public var recoveredShare: Double?
        public var lostShare: Double?
        public var duplicateShare: Double?
    }

    public struct Delivery: Sendable, Codable, Equatable {
        public var deliveryID: String
        public var recipient: String?
        /// Nil without gateway records.
        public var sent: Bool?
        public var sentAt: Date?
        /// `delivered` rows (duplicates included).
        public var delivered: Int
        public var opened: Int
        public var otherMetrics: Int
        public var firstSeen: Date
        public var lastSeen: Date
        public var duplicates: Int
        public var recoveredAtLaunch: Bool
        /// Routes that carried its metrics, in first-seen order.
        public var routes: [String]
    }

    /// Builds the report from stored metrics, request outcomes and (optionally) what was sent.
    public static func build(metrics: [StoredMetric], requests: [RequestOutcomeCount] = [], sent: [SentPush]? = nil,
                             recoveryThresholdSeconds: Double = 60, generatedAt: Date = Date()) -> MetricsReport {
        let tally = tallyDeliveries(metrics, recoveryThresholdSeconds: recoveryThresholdSeconds)
        var lines = tally.lines
        let (order, firstDelivered, firstOpened) = (tally.order, tally.firstDelivered, tally.firstOpened)
        let sentByID = sent.map { Dictionary($0.map { ($0.deliveryID, $0) }, uniquingKeysWith: { a, _ in a }) }
        if let sentByID {
            for id in order {
                lines[id]!.sent = sentByID[id] != nil
                lines[id]!.sentAt = sentByID[id]?.sentAt
            }
        }

        func summary(_ group: String, sdkMode: String?, includes: (StoredMetric) -> Bool, isTotal: Bool) -> Summary {
            let rows = metrics.filter(includes)
            let deliveredIDs = firstDelivered.filter { includes($0.value) }
            let recovered = deliveredIDs.values.filter { isRecovered($0, threshold: recoveryThresholdSeconds) }.count
            let opened = firstOpened.values.filter(includes).count
            let duplicates = rows.filter(\.isDuplicate)
            let sentCount = sentByID?.count
            let deliveredOfSent = sentByID.map { s in deliveredIDs.keys.filter { s[$0] != nil }.count }
            let lost = isTotal ? sentByID.map { s in s.keys.filter { firstDelivered[$0] == nil }.count } : nil
            let unique = rows.count - duplicates.count
            // Open rate: opened ids of this group over every delivered id (opens follow deliveries
            // whatever route the delivery came by).
            return Summary(group: group, sdkMode: sdkMode, sent: sentCount, metricsReceived: rows.count,
                           delivered: deliveredIDs.count, deliveredLive: deliveredIDs.count - recovered,
                           recoveredAtLaunch: recovered, opened: opened, lost: lost, duplicates: duplicates.count,
                           duplicatedDeliveries: Set(duplicates.map(\.reported.deliveryID)).count,
                           notSent: sentByID.map { s in deliveredIDs.keys.filter { s[$0] == nil }.count },
                           deliveryRate: ratio(deliveredOfSent, sentCount),
                           openRate: ratio(opened, firstDelivered.count),
                           recoveredShare: ratio(recovered, deliveredIDs.count),
                           lostShare: ratio(lost, sentCount),
                           duplicateShare: ratio(duplicates.count, unique))
        }

        let totals = summary("total", sdkMode: nil, includes: { _ in true }, isTotal: true)
        let byRoute = CIOMetricRoute.allCases.map { route in
            summary(route.path, sdkMode: route.sdkMode, includes: { $0.reported.route == route }, isTotal: false)
        }
        let bySDK = ["cio-4", "legacy"].map { family in
            summary(family, sdkMode: nil, includes: { $0.reported.route.sdkFamily == family }, isTotal: false)
        }
        let byPlatform = MetricPlatform.allCases.map { platform in
            summary(platform.rawValue, sdkMode: nil, includes: { MetricPlatform(userAgent: $0.userAgent) == platform }, isTotal: false)
        }
        return MetricsReport(generatedAt: generatedAt, recoveryThresholdSeconds: recoveryThresholdSeconds,
                             hasSentRecords: sent != nil, totals: totals, byRoute: byRoute, bySDK: bySDK, byPlatform: byPlatform,
                             deliveries: order.map { lines[$0]! }, requests: requests)
    }

    /// One line per delivery id in first-seen order, and per id the row that first brought `delivered`
    /// and `opened`.
    private static func tallyDeliveries(_ metrics: [StoredMetric], recoveryThresholdSeconds: Double)
        -> (lines: [String: Delivery], order: [String], firstDelivered: [String: StoredMetric],
            firstOpened: [String: StoredMetric]) {
        var lines: [String: Delivery] = [:]
        var order: [String] = []
        var firstDelivered: [String: StoredMetric] = [:]
        var firstOpened: [String: StoredMetric] = [:]
        for m in metrics {
            let id = m.reported.deliveryID
            if lines[id] == nil {
                order.append(id)
                lines[id] = Delivery(deliveryID: id, recipient: m.reported.recipient, sent: nil, sentAt: nil, delivered: 0, opened: 0,
                                     otherMetrics: 0, firstSeen: m.receivedAt, lastSeen: m.receivedAt, duplicates: 0,
                                     recoveredAtLaunch: false, routes: [])
            }
            var line = lines[id]!
            switch m.reported.metric {
            case .delivered:
                line.delivered += 1
                if firstDelivered[id] == nil {
                    firstDelivered[id] = m
                    line.recoveredAtLaunch = isRecovered(m, threshold: recoveryThresholdSeconds)
                }
            case .opened:
                line.opened += 1
                if firstOpened[id] == nil { firstOpened[id] = m }
            case .converted, .clicked:
                line.otherMetrics += 1
            }
            if m.isDuplicate { line.duplicates += 1 }
            line.firstSeen = min(line.firstSeen, m.receivedAt)
            line.lastSeen = max(line.lastSeen, m.receivedAt)
            if line.recipient == nil || line.recipient == "" { line.recipient = m.reported.recipient }
            if !line.routes.contains(m.reported.route.path) { line.routes.append(m.reported.route.path) }
            lines[id] = line
        }
        return (lines, order, firstDelivered, firstOpened)
    }

    /// Reads the collector's store (and the gateway's records) and builds the report.
    public static func load(store: MetricStore, gatewayDatabasePath: String? = nil, recoveryThresholdSeconds: Double = 60,
                            generatedAt: Date = Date()) throws -> MetricsReport {
        let sent = try gatewayDatabasePath.map { try GatewayPushReader.acceptedPushes(databasePath: $0) }
        return build(metrics: try store.metrics(), requests: try store.requestOutcomes(), sent: sent,
                     recoveryThresholdSeconds: recoveryThresholdSeconds, generatedAt: generatedAt)
    }

    /// The recovery rule of `recoveryThresholdSeconds`.
    public static func isRecovered(_ m: StoredMetric, threshold: Double) -> Bool {
        guard m.reported.metric == .delivered else { return false }
        if m.reported.route == .batch { return true }
        guard let original = m.reported.originalTimestamp else { return false }
        return m.receivedAt.timeIntervalSince(original) > threshold
    }

    static func ratio(_ part: Int?, _ whole: Int?) -> Double? {
        guard let part, let whole, whole > 0 else { return nil }
        return Double(part) / Double(whole)
    }
}

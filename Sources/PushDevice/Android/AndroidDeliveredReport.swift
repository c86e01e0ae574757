import Foundation

/// The delivered metric's life on the phone, in emulated milliseconds since the push arrived.
public struct AndroidDeliveredReport: Sendable, Codable, Equatable {
    public var deliveryID: String
    public var sdkMode: AndroidSDKMode
    public var timeline: [AndroidTimelineEntry]
    public var requests: [AndroidMetricRequest]
    public var fate: AndroidMetricFate
    /// Entries left in the pending store file when the emulation ended.
    public var storeEntriesAtEnd: Int
    /// The WorkManager job is still enqueued (waiting for network or back-off) at the end.
    public var jobStillEnqueued: Bool
    /// Events the app's analytics pipeline still holds at the end.
    public var queuedInApp: Int

    /// Requests that reached the server with a 2xx.
    public var acknowledged: Int { requests.filter { $0.reachedServer && ($0.status.map { (200..<300).contains($0) } ?? false) }.count }
    public var reachedServer: Int { requests.filter(\.reachedServer).count }
    /// The process died while the metric was on the phone (between requests or during one).
    public var processKilled: Bool {
        timeline.contains { $0.event.hasPrefix("process killed") } || requests.contains { $0.error?.hasPrefix("process killed") == true }
    }
}

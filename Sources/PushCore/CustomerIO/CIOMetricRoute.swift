/// The routes a Customer.io SDK reports push metrics to (docs/specs/device-side.md §3). The one
/// definition the emulated device (sender of metrics) and the collector (receiver) share.
public enum CIOMetricRoute: String, Sendable, Codable, CaseIterable {
    /// `delivered` from the 4.x Notification Service Extension, one request per metric.
    case track = "/v1/track"
    /// The 4.x host app's event pipeline: batches of events (opened; delivered recovered at launch).
    case batch = "/v1/b"
    /// Legacy SDKs (1.x/2.x): one event per request, on the legacy track host.
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

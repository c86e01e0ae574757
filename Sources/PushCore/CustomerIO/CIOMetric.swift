/// The push metrics the Customer.io SDKs send (the SDK's `Metric` enum).
public enum CIOMetric: String, Sendable, Codable, CaseIterable {
    case delivered
    case opened
    case converted
    case clicked
}

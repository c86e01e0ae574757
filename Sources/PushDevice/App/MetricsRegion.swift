import Foundation

/// Customer.io data centre (docs/specs/device-side.md §3).
public enum MetricsRegion: String, Codable, Sendable, CaseIterable {
    case us
    case eu
}

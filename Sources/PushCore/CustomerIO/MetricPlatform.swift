import Foundation

/// Which SDK platform sent a metric, read from its User-Agent: the Android SDK sends
/// `Android Client/<version>` (docs/specs/android-side.md §4); the iOS SDK's extension and app
/// send `Customer.io NSE Client/…` and `Customer.io iOS Client/…` (docs/specs/device-side.md §3).
public enum MetricPlatform: String, Sendable, Codable, CaseIterable {
    case ios
    case android
    case unknown

    public init(userAgent: String?) {
        guard let ua = userAgent else { self = .unknown; return }
        if ua.hasPrefix("Android Client/") || ua.contains("Android") { self = .android }
        else if ua.contains("iOS") || ua.contains("NSE Client") || ua.contains("iPhone") { self = .ios }
        else { self = .unknown }
    }
}

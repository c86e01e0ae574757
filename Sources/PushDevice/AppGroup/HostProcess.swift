import Foundation

/// Which of the two processes sharing the App Group is asking.
public enum HostProcess: String, Sendable, Codable {
    /// The Notification Service Extension (bundle id = the extension's).
    case notificationServiceExtension = "nse"
    /// The host app (bundle id = the main bundle's).
    case app
}

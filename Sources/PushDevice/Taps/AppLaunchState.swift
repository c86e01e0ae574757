import Foundation

/// The app's state when the push is tapped.
public enum AppLaunchState: String, Sendable, Hashable, Codable, CaseIterable {
    /// Terminated: the tap launches the app.
    case cold
    /// In the background: the tap brings it to the foreground.
    case warm
    /// In the foreground: the push is shown only if `willPresent` presents it.
    case foreground
}

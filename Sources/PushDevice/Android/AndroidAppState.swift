import Foundation

/// The app's process state when the message arrives. `foreground` with a locked screen counts
/// as background for the FCM SDK (`isAppForeground`).
public enum AndroidAppState: String, Sendable, Codable, CaseIterable {
    case foreground, background, killed
}

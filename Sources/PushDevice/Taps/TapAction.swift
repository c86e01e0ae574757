import Foundation

/// What the user did with the notification (`UNNotificationResponse.actionIdentifier`).
public enum TapAction: Sendable, Hashable, Codable, CustomStringConvertible {
    /// `UNNotificationDefaultActionIdentifier`: a tap on the notification itself.
    case `default`
    /// `UNNotificationDismissActionIdentifier` (categories with `.customDismissAction`).
    case dismiss
    /// A custom action button.
    case custom(String)

    /// `default`, `dismiss`, or any other text as a custom action id.
    public init(_ text: String) {
        switch text {
        case "default", "com.apple.UNNotificationDefaultActionIdentifier": self = .default
        case "dismiss", "com.apple.UNNotificationDismissActionIdentifier": self = .dismiss
        default: self = .custom(text)
        }
    }

    public var description: String {
        switch self {
        case .default: return "default"
        case .dismiss: return "dismiss"
        case .custom(let id): return id
        }
    }

    public init(from decoder: Decoder) throws { self.init(try decoder.singleValueContainer().decode(String.self)) }
    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(description)
    }
}

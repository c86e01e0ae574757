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

/// The app's state when the push is tapped.
public enum AppLaunchState: String, Sendable, Hashable, Codable, CaseIterable {
    /// Terminated: the tap launches the app.
    case cold
    /// In the background: the tap brings it to the foreground.
    case warm
    /// In the foreground: the push is shown only if `willPresent` presents it.
    case foreground
}

/// One tap to replay.
public struct Tap: Sendable, Hashable, Codable {
    public var action: TapAction
    public var state: AppLaunchState
    public init(action: TapAction = .default, state: AppLaunchState = .warm) {
        self.action = action
        self.state = state
    }
}

/// A notification attachment on disk (the NSE saved rich-push images as
/// `<tmp>/cio_sdk/<uuid>_<name>` with ids `cio_sdk_…`, docs/specs/device-side.md §2).
public struct NotificationAttachment: Sendable, Hashable, Codable {
    public var identifier: String
    public var path: String
    public init(identifier: String, path: String) {
        self.identifier = identifier
        self.path = path
    }

    /// The attachment the NSE emulator built (`NotificationServiceExtension`'s report).
    public init(_ attachment: RichPushAttachment) {
        self.init(identifier: attachment.identifier, path: attachment.path)
    }

    /// The prefix of attachments the SDK created (and deletes after the tap).
    public static let sdkIdentifierPrefix = "cio_sdk_"
    public var isSDKAttachment: Bool { identifier.hasPrefix(Self.sdkIdentifierPrefix) }
}

/// File removal for the post-tap cleanup; tests can observe or fail it.
public protocol TapFileRemover: Sendable {
    func removeItem(atPath path: String) throws
}

/// The real file system.
public struct LocalTapFileRemover: TapFileRemover {
    public init() {}
    public func removeItem(atPath path: String) throws { try FileManager.default.removeItem(atPath: path) }
}

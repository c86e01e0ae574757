import Foundation

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

import Foundation

/// The image of a notification: what was fetched and whether it is shown.
public struct AndroidImageResult: Sendable, Codable, Equatable {
    public var url: String
    public var shown: Bool
    /// Why not, as a stable code (`http-404`, `too-large`, `outlived-window`, …).
    public var code: String?
    public var reason: String?
    public var fix: String?
    public var bytes: Int?
    public var format: String?
    public var elapsedMs: Int64
}

/// Who drew the notification.
public enum AndroidDrawer: String, Sendable, Codable {
    /// `CustomerIOPushNotificationHandler` (data messages, and anything in the foreground).
    case customerIOSDK = "customer.io-sdk"
    /// The FCM SDK's tray notification (notification messages in the background).
    case fcmSDK = "fcm-sdk"
}

/// The notification as the shade shows it.
public struct AndroidShadeNotification: Sendable, Codable, Equatable {
    public var drawnBy: AndroidDrawer
    public var title: String
    public var body: String
    public var channelID: String
    public var channelImportance: Int
    /// `BigTextStyle` (no picture) or `BigPictureStyle`.
    public var style: String
    public var image: AndroidImageResult?
    /// What a tap starts: `NotificationClickReceiverActivity`, or the tray's intent.
    public var tapIntent: String
    /// Intent extras a tap carries (tray path: the data keys).
    public var extras: [String]
    /// The link the SDK will route on tap (`data.link` only).
    public var link: String?
}

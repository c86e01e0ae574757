import Foundation

/// One push as the console's log shows it: what a gateway or a relay received, how it answered.
/// The full device token stays on the server (search matches it); the console's pages only
/// ever get it shortened.
public struct LoggedPush: Sendable, Equatable {
    /// Which part of pushlab saw the push.
    /// `console`: the send form's push to a server outside this lab (`serve --console-profile`).
    public enum Source: String, Sendable, Codable { case gateway, relay, console }
    public enum Platform: String, Sendable, Codable { case apns, fcm }

    /// Assigned by the log, in arrival order, from 1; 0 until appended.
    public var id: Int64 = 0
    public var receivedAt: Date
    public var source: Source
    public var platform: Platform
    /// The APNs topic (bundle id) or the Firebase project.
    public var app: String?
    /// Device token or FCM registration token (kept whole for search; served shortened).
    public var target: String?
    /// The registered device's name, when the token belongs to one.
    public var device: String?
    public var pushType: String?
    public var status: Int
    /// APNs reason or FCM error code; nil when accepted.
    public var reason: String?
    /// `apns-id`, or the FCM message name.
    public var messageID: String?
    /// `apns-unique-id` (APNs sandbox answers only).
    public var uniqueID: String?
    /// `CIO-Delivery-ID`, joining the push with the collector's metrics.
    public var deliveryID: String?
    /// Request headers as received, authorization already redacted by the source.
    public var headers: [String: String]
    public var payload: String
    /// The relay's push id (`p_…`) for the relay's rows: its `202` row and each target's result.
    public var relayPushID: String?

    public init(receivedAt: Date, source: Source, platform: Platform, app: String?, target: String?, device: String?,
                pushType: String?, status: Int, reason: String?, messageID: String?, uniqueID: String?, deliveryID: String?,
                headers: [String: String], payload: String) {
        self.receivedAt = receivedAt
        self.source = source
        self.platform = platform
        self.app = app
        self.target = target
        self.device = device
        self.pushType = pushType
        self.status = status
        self.reason = reason
        self.messageID = messageID
        self.uniqueID = uniqueID
        self.deliveryID = deliveryID
        self.headers = headers
        self.payload = payload
    }

    public var accepted: Bool { (200..<300).contains(status) }
}

/// Where pushes enter the console's log. The gateway feeds it through `GatewayLogFeed`; the relay
/// (or anything else that sends or receives pushes) calls `append` with what it saw.
public protocol PushLogFeed: Sendable {
    func append(_ push: LoggedPush)
}

import Foundation
import PushGateway

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
    public var headers: [String: String] {
        get { content.built.headers }
        set { content = .built(headers: newValue, payload: payload) }
    }
    public var payload: String {
        get { content.built.payload }
        set { content = .built(headers: headers, payload: newValue) }
    }
    /// The header map and payload text, or (from the gateway) what they are built from when a
    /// push's detail is read: building them for every push as it arrives cost the gateway about
    /// a third of its intake (closing note of issue 22's session).
    private var content: Content
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
        self.content = .built(headers: headers, payload: payload)
    }

    /// A push the gateway recorded; its header map and payload text are built when read.
    public init(recorded push: RecordedPush, receivedAt: Date, source: Source, platform: Platform, app: String?, target: String?,
                device: String?, pushType: String?, status: Int, reason: String?, messageID: String?, uniqueID: String?,
                deliveryID: String?) {
        self.init(receivedAt: receivedAt, source: source, platform: platform, app: app, target: target, device: device,
                  pushType: pushType, status: status, reason: reason, messageID: messageID, uniqueID: uniqueID,
                  deliveryID: deliveryID, headers: [:], payload: "")
        content = .recorded(push)
    }

    /// This push with its header map and payload text built once, for code that reads them
    /// several times (the detail view).
    public var materialized: LoggedPush {
        var copy = self
        let (headers, payload) = content.built
        copy.content = .built(headers: headers, payload: payload)
        return copy
    }

    private enum Content: Sendable, Equatable {
        case built(headers: [String: String], payload: String)
        case recorded(RecordedPush)

        var built: (headers: [String: String], payload: String) {
            switch self {
            case .built(let headers, let payload): return (headers, payload)
            case .recorded(let push): let r = push.completed; return (r.headers, r.payload)
            }
        }

        static func == (a: Content, b: Content) -> Bool { a.built == b.built }
    }

    public var accepted: Bool { (200..<300).contains(status) }
}

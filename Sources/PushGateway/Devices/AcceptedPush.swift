import Foundation
import PushCore
import PushHTTP

/// A push the gateway accepted, on its way to an emulated device.
public struct AcceptedPush: Sendable {
    public var service: PushRecord.Service
    public var device: EmulatedDevice?
    /// The APNs payload the device receives (for FCM: built from `message.apns.payload`); for an
    /// Android device, the FCM send request as posted (`{"message":{…}}`).
    public var payload: [UInt8]
    /// The APNs `apns-id` or the FCM message name; made a string only when read (most sinks
    /// never read it, and the APNs route holds its id as inline text).
    public var messageID: String {
        get {
            switch id {
            case .text(let text): return text
            case .uuid(let uuid): return uuid.string
            }
        }
        set { id = .text(newValue) }
    }
    private var id: MessageID
    public var deliveryID: String?
    public var receivedAt: Date
    /// The device token the push was addressed to (APNs path; FCM `apns.live_activity_token`),
    /// so a Live Activity token or push-to-start token can be told apart from the device's own.
    public var token: String? = nil
    /// `apns-priority` as sent (nil: none, APNs uses 10).
    public var priority: Int? = nil

    private enum MessageID: Sendable {
        case text(String)
        case uuid(CanonicalUUIDText)
    }

    public init(service: PushRecord.Service, device: EmulatedDevice?, payload: [UInt8], messageID: String, deliveryID: String?,
                receivedAt: Date, token: String? = nil, priority: Int? = nil) {
        self.init(service: service, device: device, payload: payload, id: .text(messageID), deliveryID: deliveryID,
                  receivedAt: receivedAt, token: token, priority: priority)
    }

    /// A push whose id is a UUID's inline text (the APNs route's `apns-id`).
    public init(service: PushRecord.Service, device: EmulatedDevice?, payload: [UInt8], messageID: CanonicalUUIDText,
                deliveryID: String?, receivedAt: Date, token: String? = nil, priority: Int? = nil) {
        self.init(service: service, device: device, payload: payload, id: .uuid(messageID), deliveryID: deliveryID,
                  receivedAt: receivedAt, token: token, priority: priority)
    }

    private init(service: PushRecord.Service, device: EmulatedDevice?, payload: [UInt8], id: MessageID, deliveryID: String?,
                 receivedAt: Date, token: String?, priority: Int?) {
        self.service = service
        self.device = device
        self.payload = payload
        self.id = id
        self.deliveryID = deliveryID
        self.receivedAt = receivedAt
        self.token = token
        self.priority = priority
    }
}

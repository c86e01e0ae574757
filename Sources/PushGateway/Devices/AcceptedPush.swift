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
    public var messageID: String
    public var deliveryID: String?
    public var receivedAt: Date
    /// The device token the push was addressed to (APNs path; FCM `apns.live_activity_token`),
    /// so a Live Activity token or push-to-start token can be told apart from the device's own.
    public var token: String? = nil
    /// `apns-priority` as sent (nil: none, APNs uses 10).
    public var priority: Int? = nil
}

import Foundation
import PushCore
import PushHTTP
import PushStore

/// One push as the gateway judged it.
public struct PushRecord: Sendable, Codable, Equatable {
    public enum Service: String, Sendable, Codable { case apns, fcm }
    public var receivedAt: Date
    public var service: Service
    public var token: String?
    public var device: String?
    public var topic: String?
    public var pushType: String?
    /// APNs `apns-id`, or the FCM message name.
    public var messageID: String?
    public var status: Int
    /// APNs reason or FCM errorCode; nil when accepted.
    public var reason: String?
    /// `CIO-Delivery-ID` when the payload carried one (joins with the collector's metrics).
    public var deliveryID: String?
    /// The `apns-unique-id` a sandbox answer carried (kept in memory only, not in the SQLite table).
    public var uniqueID: String?
    /// Request headers, authorization redacted.
    public var headers: [String: String]
    public var payload: String

    public init(receivedAt: Date, service: Service, token: String?, device: String?, topic: String?, pushType: String?,
                messageID: String?, status: Int, reason: String?, deliveryID: String?, headers: [String: String], payload: String,
                uniqueID: String? = nil) {
        self.receivedAt = receivedAt
        self.service = service
        self.token = token
        self.device = device
        self.topic = topic
        self.pushType = pushType
        self.messageID = messageID
        self.status = status
        self.reason = reason
        self.deliveryID = deliveryID
        self.headers = headers
        self.payload = payload
        self.uniqueID = uniqueID
    }
}

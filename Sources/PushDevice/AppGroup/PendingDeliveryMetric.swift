import Foundation
import PushCore

/// One delivered metric the extension promised to report, kept in the App Group until it is
/// acknowledged (docs/specs/device-side.md §4). The coding keys and types match the reference SDK's
/// `pending_push_delivery_metrics.json` rows.
public struct PendingDeliveryMetric: Sendable, Hashable, Codable {
    public var id: UUID
    public var deliveryID: String
    /// The push's `CIO-Delivery-Token` (the device token the metric reports as recipient).
    public var deviceID: String
    public var event: String
    public var timestamp: Date

    public init(id: UUID = UUID(), deliveryID: String, deviceID: String, event: String = CIOMetric.delivered.rawValue, timestamp: Date) {
        self.id = id
        self.deliveryID = deliveryID
        self.deviceID = deviceID
        self.event = event
        self.timestamp = timestamp
    }

    enum CodingKeys: String, CodingKey {
        case id
        case deliveryID = "delivery_id"
        case deviceID = "device_id"
        case event
        case timestamp
    }
}

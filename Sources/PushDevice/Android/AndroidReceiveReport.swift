import Foundation

/// What the virtual Android phone did with one FCM message.
public struct AndroidReceiveReport: Sendable, Codable, Equatable {
    public var messageType: AndroidMessageType
    public var state: AndroidAppState
    /// The state as the FCM SDK judges it (a locked screen counts as background).
    public var effectiveState: AndroidAppState
    public var highPriority: Bool
    /// Emulated ms at which the phone got the message (normal priority waits out Doze).
    public var arrivedAtMs: Int64
    /// Which code saw the message: `fcm-tray`, `customer.io` or another service's name.
    public var handledBy: String
    public var customerIOPush: Bool
    public var deliveryID: String?
    /// The duplicate guard had seen this delivery id in this process.
    public var duplicate: Bool
    /// The SDK stored and scheduled a delivered metric for this message.
    public var deliveredTracked: Bool
    public var notification: AndroidShadeNotification?
    /// Why nothing is in the shade, when nothing is.
    public var notShownReason: String?
    public var diagnostics: [AndroidDiagnostic]
    /// Real milliseconds since the message reached the process.
    public var timeline: [AndroidTimelineEntry]
    public var metric: AndroidDeliveredReport?
}

import Foundation

/// One Live Activity subscribed to a broadcast channel: the virtual device and the activity.
public struct ChannelSubscriber: Sendable, Hashable {
    public var deviceName: String
    public var activityID: String
    public init(deviceName: String, activityID: String) {
        self.deviceName = deviceName
        self.activityID = activityID
    }
}

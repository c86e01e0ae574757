import Foundation
import PushCore

/// `PushClickBehavior` (docs/specs/android-side.md §5).
public enum PushClickBehavior: String, Codable, Sendable, CaseIterable {
    case activityPreventRestart = "ACTIVITY_PREVENT_RESTART"
    case resetTaskStack = "RESET_TASK_STACK"
    case activityNoFlags = "ACTIVITY_NO_FLAGS"
}

/// How a notification tap reaches app code.
public enum AndroidClickHandler: String, Codable, Sendable, CaseIterable {
    /// SDK 3.8+: `NotificationClickReceiverActivity` (an activity: no trampoline).
    case receiverActivity = "receiver-activity"
    /// SDK 3.x below 3.8 and many hand-written apps: a BroadcastReceiver that starts the activity.
    case broadcastReceiver = "broadcast-receiver"
    /// The app's own Service started by the PendingIntent, which then starts the activity.
    case service
}

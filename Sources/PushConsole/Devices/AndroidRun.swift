import PushDevice

/// What a virtual Android phone did with one FCM message: the SDK's report (the shade
/// notification with its channel and image, the delivered metric's fate and the pending store
/// at the end) and where a tap on the notification would go.
public struct AndroidRun: Sendable, Codable {
    public var report: AndroidReceiveReport
    /// The app's label, as the shade shows it.
    public var appLabel: String
    /// Nil when nothing is in the shade to tap.
    public var tap: AndroidTapOutcome?
}

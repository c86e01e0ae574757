import Foundation
import PushDevice

/// What the console's virtual iPhone did with one push: the extension's run, its bars, the
/// notification it shows and where a tap would go.
public struct DeviceNotification: Sendable, Codable {
    public var messageID: String
    public var device: String
    public var receivedAt: Date
    /// The app's bundle id, shown as the notification's app name.
    public var app: String
    /// Nil when the phone did not run the push (see `skipped`).
    public var report: NSERunReport?
    public var bars: ExtensionBars?
    public var tap: TapPreview?
    /// Why the extension did not run, e.g. the phone was busy with `maxRunning` others.
    public var skipped: String?
    /// The notebook's own copy of the attached image, when it keeps copies (a tap deletes the
    /// extension's file, as the SDK does).
    public var thumbnailPath: String?
    /// On a virtual Android phone: what the Customer.io Android SDK did (`report` and `tap` above
    /// are the iPhone's and stay nil).
    public var android: AndroidRun?
    /// On a virtual iPhone with the Retainza SDK: its handlers, ack and timeline.
    public var retainza: RetainzaRun?
}

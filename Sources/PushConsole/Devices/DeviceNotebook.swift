import Foundation
import PushCore
import PushDevice
import PushGateway
import Synchronization

/// What the console's device view shows: the virtual devices and, per push, what each did with
/// it. `VirtualPhone` (serve --console) writes its extension runs here; `pushlab demo --console`
/// writes the lab's fleet runs. The newest `capacity` notifications are kept.
public final class DeviceNotebook: Sendable {
    /// One virtual device as the device view lists it.
    public struct Device: Sendable, Codable, Equatable {
        public var name: String
        /// `ios` or `android`.
        public var platform: String
        /// Bundle id or Android package.
        public var app: String
        public var sdkMode: String

        public init(name: String, platform: String, app: String, sdkMode: String) {
            self.name = name
            self.platform = platform
            self.app = app
            self.sdkMode = sdkMode
        }
    }

    public let capacity: Int
    /// Where attached images are copied as they are kept (nil: no copies; the device view then
    /// shows the extension's file for as long as it exists).
    public let thumbnailDirectory: URL?
    private let state = Mutex(State())

    private struct State {
        var devices: [Device] = []
        var runs: [String: DeviceNotification] = [:]
        var order: [String] = []
        /// `order[..<head]` are dropped ids, compacted once they are as many as the live ones.
        var head = 0
    }

    public init(capacity: Int = 10_000, thumbnailDirectory: URL? = nil) {
        precondition(capacity > 0, "a notebook keeps at least one notification")
        self.capacity = capacity
        self.thumbnailDirectory = thumbnailDirectory
        if let thumbnailDirectory { try? FileManager.default.createDirectory(at: thumbnailDirectory, withIntermediateDirectories: true) }
    }

    /// Lists `device` (once; a later call with the same name replaces it).
    public func register(_ device: Device) {
        state.withLock { state in
            if let i = state.devices.firstIndex(where: { $0.name == device.name }) { state.devices[i] = device } else { state.devices.append(device) }
        }
    }

    public var registered: [Device] { state.withLock { $0.devices } }

    /// Keeps `run`, replacing an earlier one for the same push id.
    public func keep(_ run: DeviceNotification) {
        state.withLock { state in
            if state.runs.updateValue(run, forKey: run.messageID) == nil { state.order.append(run.messageID) }
            while state.order.count - state.head > capacity {
                if let dropped = state.runs.removeValue(forKey: state.order[state.head])?.thumbnailPath {
                    try? FileManager.default.removeItem(atPath: dropped)
                }
                state.head += 1
            }
            if state.head >= capacity {
                state.order.removeFirst(state.head)
                state.head = 0
            }
        }
    }

    /// Keeps what an iPhone's Notification Service Extension did with `push`.
    public func keep(push: AcceptedPush, device: String, profile: AppProfile, report: NSERunReport) {
        let payload = (try? JSONDocument.parse(push.payload).root) ?? .object(JSONObject())
        var run = DeviceNotification(messageID: push.messageID, device: device, receivedAt: push.receivedAt, app: profile.bundleID,
                                     report: report, bars: ExtensionBars(report: report), tap: TapPreview(payload: payload, profile: profile))
        if let thumbnailDirectory, let attachment = report.notification?.attachments.first {
            let copy = thumbnailDirectory.appendingPathComponent(UUID().uuidString + "." + attachment.type.rawValue)
            if (try? FileManager.default.copyItem(atPath: attachment.path, toPath: copy.path)) != nil { run.thumbnailPath = copy.path }
        }
        keep(run)
    }

    /// Keeps what the Customer.io Android SDK on a virtual Android phone did with `push`, with
    /// `image` (the picture the SDK showed, fetched again by the caller) as its thumbnail, written
    /// to `thumbnailDirectory`, else to `imageDirectory` (removed with the notification).
    public func keep(push: AcceptedPush, device: String, profile: AndroidAppProfile, report: AndroidReceiveReport, image: [UInt8]? = nil,
                     imageDirectory: URL? = nil) {
        let tap = report.notification.map {
            AndroidTapRouter(profile: profile).tap(AndroidTap(drawnBy: $0.drawnBy, link: $0.link, state: report.effectiveState))
        }
        var run = DeviceNotification(messageID: push.messageID, device: device, receivedAt: push.receivedAt, app: profile.package,
                                     android: AndroidRun(report: report, appLabel: profile.label, tap: tap))
        if let directory = thumbnailDirectory ?? imageDirectory, let image, let format = report.notification?.image?.format {
            try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let copy = directory.appendingPathComponent(UUID().uuidString + "." + format)
            if FileManager.default.createFile(atPath: copy.path, contents: Data(image)) { run.thumbnailPath = copy.path }
        }
        keep(run)
    }

    /// Keeps what a virtual iPhone with the Retainza SDK did with a push (docs/retainza.md).
    public func keep(retainza run: RetainzaRun, pushID: String, device: String, receivedAt: Date, app: String) {
        keep(DeviceNotification(messageID: pushID, device: device, receivedAt: receivedAt, app: app, retainza: run))
    }

    /// The notification of the push with this apns-id / FCM name, once its device finished.
    public func notification(messageID: String) -> DeviceNotification? { state.withLock { $0.runs[messageID] } }

    /// The newest `limit` notifications, newest first.
    public func notifications(limit: Int) -> [DeviceNotification] {
        state.withLock { state in state.order[state.head...].suffix(limit).reversed().compactMap { state.runs[$0] } }
    }
}

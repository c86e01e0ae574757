import Foundation
import PushCore
import PushDevice
import PushGateway
import PushHTTP
import Synchronization

/// The virtual Android phones behind `pushlab serve --console`: every FCM message the gateway
/// accepts for a device registered as `android` (`--devices`) runs through the Customer.io
/// Android SDK emulation (the same as `pushlab android receive`) with one app profile, on one
/// phone per device (its process and `filesDir` kept across messages), its delivered metric
/// going to the collector the profile names. What each phone drew is kept in `notebook`, beside
/// the virtual iPhone's runs. At most `maxRunning` messages are handled at once; one arriving
/// beyond that is recorded as not run rather than queued without bound.
public final class VirtualAndroidPhones: Sendable {
    public let profile: AndroidAppProfile
    public let notebook: DeviceNotebook
    public let maxRunning: Int
    private let transport: any HTTPTransport
    private let directory: URL
    private let state = Mutex<(phones: [String: AndroidPhone], running: Int)>(([:], 0))

    public init(profile: AndroidAppProfile, transport: any HTTPTransport, directory: URL, notebook: DeviceNotebook, maxRunning: Int = 32) {
        self.profile = profile
        self.transport = transport
        self.directory = directory
        self.notebook = notebook
        self.maxRunning = maxRunning
    }

    public func deliver(_ push: AcceptedPush) {
        let name = push.device?.name ?? "virtual Android phone"
        notebook.register(DeviceNotebook.Device(name: name, platform: "android", app: profile.package, sdkMode: profile.sdkMode.rawValue))
        let phone: AndroidPhone?
        do {
            phone = try state.withLock { state -> AndroidPhone? in
                guard state.running < maxRunning else { return nil }
                let phone = try state.phones[name] ?? AndroidPhone(profile: profile, transport: transport,
                                                                   filesDir: directory.appendingPathComponent(Self.directoryName(name)))
                state.phones[name] = phone
                state.running += 1
                return phone
            }
        } catch {
            notebook.keep(DeviceNotification(messageID: push.messageID, device: name, receivedAt: push.receivedAt, app: profile.package,
                                             skipped: "the virtual Android phone could not start: \(error)"))
            return
        }
        guard let phone else {
            notebook.keep(DeviceNotification(messageID: push.messageID, device: name, receivedAt: push.receivedAt, app: profile.package,
                                             skipped: "the virtual Android phones were handling \(maxRunning) messages already"))
            return
        }
        Task {
            let message = (try? JSONDocument.parse(push.payload).root).flatMap { try? AndroidMessage.parse($0) } ?? AndroidMessage()
            let report = await phone.receive(message, state: .background, conditions: AndroidConditions())
            // The SDK keeps no copy of the picture it drew: fetch it again for the thumbnail.
            var image: [UInt8]?
            if let shown = report.notification?.image, shown.shown, let answer = try? await self.transport.send(HTTPRequest(method: "GET", url: shown.url)),
               answer.status == 200 {
                image = answer.body
            }
            self.state.withLock { $0.running -= 1 }
            self.notebook.keep(push: push, device: name, profile: self.profile, report: report, image: image,
                               imageDirectory: self.directory.appendingPathComponent("thumbnails"))
        }
    }

    /// Messages being handled now.
    public var runningCount: Int { state.withLock { $0.running } }

    private static func directoryName(_ device: String) -> String {
        String(device.map { $0.isLetter || $0.isNumber || $0 == "-" ? $0 : "_" })
    }
}

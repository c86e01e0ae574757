import Foundation
import OfflineLab
import PushConsole
import PushCore
import PushDevice
import PushGateway
import PushHTTP

/// `pushlab serve --retainza-app JSON` (docs/retainza.md): one virtual iPhone whose app embeds
/// the Retainza SDK behind the emulator. Its FCM token is registered with the gateway, its SDK
/// talks to serve's own collector (`/retainza/v1`), and every push the FCM route accepts for it
/// goes to the lab's `RetainzaFleet` (the same bridge `pushlab demo` uses) instead of the
/// Customer.io iPhone.
enum ServeRetainza {
    static let deviceName = "iphone-retainza"
    static let app = Option.string("--retainza-app", name: "JSON", help: "Also run a virtual iPhone with this Retainza app profile (\"sdkMode\": \"retainza\"): its FCM token is registered (quick start ends, as with POST /admin/devices), its SDK reports to this collector's /retainza/v1, and its handlers run on every push to it (docs/retainza.md).")

    /// The profile `--retainza-app` names, or nil without the option.
    static func profile(_ args: ParsedArguments) throws -> RetainzaAppProfile? {
        guard let path = try args[app] else { return nil }
        let profile: RetainzaAppProfile
        do { profile = try RetainzaAppProfile.load(path: path) } catch { throw UsageError("--retainza-app \(error.reason)", fix: error.fix) }
        return profile
    }

    /// Registers the phone's tokens with the gateway (before it starts: the first push finds it).
    static func register(_ profile: RetainzaAppProfile, in devices: DeviceRegistry) {
        devices.register(EmulatedDevice(name: deviceName, apnsToken: profile.apnsToken, fcmToken: profile.fcmToken,
                                        bundleID: profile.bundleID, firebaseProject: profile.firebaseProject))
    }

    /// Sends the pushes for the Retainza iPhone to `fleet` (still printing their line); every
    /// other push to `next`.
    struct Sink: PushDeliverySink {
        let fleet: RetainzaFleet
        let lines: (any PushDeliverySink)?
        let next: (any PushDeliverySink)?
        func deliver(_ push: AcceptedPush) {
            if fleet.deliver(push) { lines?.deliver(push) } else { next?.deliver(push) }
        }
        func deliverToAndroid(_ push: AcceptedPush) { next?.deliverToAndroid(push) }
    }

    /// Once the gateway is bound: the phone with its SDK pointed at serve's collector, launched
    /// (start, token, identify); a line per push it handles, and the console's device view fed.
    /// Returns the banner lines and the HTTP client to shut down at the end.
    static func start(_ profile: RetainzaAppProfile, fleet: RetainzaFleet, gateway: Gateway, certsDirectory: String,
                      console: Console?, quiet: Bool) async throws -> (lines: [String], client: HTTPClient) {
        guard let base = gateway.fcmURL else {
            throw UsageError("--retainza-app needs the Google host's TLS port (the collector the SDK reports to)", fix: "do not turn --port off")
        }
        let caFile = certsDirectory + "/ca.pem"
        let client: HTTPClient
        do { client = try HTTPClient(configuration: HTTPClientConfiguration(caFile: FileManager.default.fileExists(atPath: caFile) ? caFile : nil)) } catch {
            throw UsageError("the Retainza iPhone's HTTP client: \(error)")
        }
        var p = profile
        p.baseURL = base + RetainzaContract.collectorPrefix
        let container = ConsoleSetup.workDirectory.appendingPathComponent("retainza")
        try? FileManager.default.createDirectory(at: container, withIntermediateDirectories: true)
        let phone = RetainzaPhone(profile: p, container: container.path, transport: client, clock: SystemTimeSource())
        fleet.add(deviceNamed: deviceName, phone)
        let notebook = console?.attachedNotebook
        notebook?.register(DeviceNotebook.Device(name: deviceName, platform: "ios", app: p.bundleID, sdkMode: "retainza"))
        fleet.setObserver { arrival, phone in
            if !quiet {
                let handler = arrival.outcome.handler ?? "no handler"
                let ack = arrival.outcome.ack.map { "received ack \($0)" } ?? "no ack"
                emit("retainza \(arrival.device): push \(arrival.pushID) rz_message_id=\(arrival.messageID ?? "-") → \(handler), \(ack)")
            }
            guard let notebook else { return }
            let run = RetainzaRun(userInfo: arrival.userInfo, handler: arrival.outcome.handler,
                                  ack: arrival.outcome.ack.map { "\($0)" }, timeline: await phone.timeline)
            notebook.keep(retainza: run, pushID: arrival.pushID, device: arrival.device, receivedAt: arrival.receivedAt, app: phone.profile.bundleID)
        }
        await phone.launch()
        var lines = ["retainza: \(deviceName) (\(p.bundleID)), SDK → \(p.baseURL); FCM token \(p.fcmToken)"]
        if await phone.registeredToken == nil {
            lines.append("retainza: the SDK did not register its FCM token: " + (await phone.timeline).map(\.text).joined(separator: "; "))
        }
        return (lines, client)
    }
}

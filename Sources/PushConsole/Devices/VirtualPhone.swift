import Foundation
import PushCore
import PushDevice
import PushGateway
import PushHTTP
import Synchronization

/// A virtual iPhone behind the gateway for `pushlab serve --console`: every accepted push runs
/// through the app's Notification Service Extension (the same emulator as `pushlab nse`), its
/// delivered metric going to the collector the profile names. The newest `capacity` runs are
/// kept for the console's device view. At most `maxRunning` extensions run at once and at most
/// `runsPerSecond` start a second (a token bucket holding one second's worth): a push beyond
/// either is recorded as not run, with the reason, rather than queued without bound. So a
/// gateway taking 10,000 pushes a second spends its CPU on taking them, not on running an
/// extension (and posting a delivered metric) for each; the device view says which were run.
public final class VirtualPhone: PushDeliverySink, Sendable {
    public let name: String
    public let profile: AppProfile
    public let capacity: Int
    public let maxRunning: Int
    private let transport: any HTTPTransport
    private let clock: any NSEClock
    private let budget: Duration
    private let workDirectory: URL
    /// The token bucket's clock (tests move a `ManualTimeSource` by hand).
    private let time: any TimeSource
    /// Where the phone keeps what it did with each push (the console's device view reads it).
    public let notebook: DeviceNotebook
    private let state: Mutex<State>

    private struct State {
        var running = 0
        var perSecond = 100
        var tokens = 100.0
        var refilledAt: Date
    }

    /// Most extension runs started per second (`--console-phone-rate`); 100 by default.
    public var runsPerSecond: Int {
        get { state.withLock { $0.perSecond } }
        set {
            precondition(newValue > 0, "the phone runs at least one extension a second")
            state.withLock {
                $0.perSecond = newValue
                $0.tokens = Double(newValue)
            }
        }
    }

    public init(name: String = "virtual iPhone", profile: AppProfile, transport: any HTTPTransport,
                clock: any NSEClock = ScaledClock(), budget: Duration = .seconds(30), workDirectory: URL,
                capacity: Int = 10_000, maxRunning: Int = 32, time: any TimeSource = SystemTimeSource()) {
        self.name = name
        self.time = time
        state = Mutex(State(refilledAt: time.now))
        self.profile = profile
        self.transport = transport
        self.clock = clock
        self.budget = budget
        self.workDirectory = workDirectory
        self.capacity = capacity
        self.maxRunning = maxRunning
        notebook = DeviceNotebook(capacity: capacity)
        notebook.register(DeviceNotebook.Device(name: name, platform: "ios", app: profile.bundleID, sdkMode: profile.sdkMode.rawValue))
        try? FileManager.default.createDirectory(at: workDirectory.appendingPathComponent("container"), withIntermediateDirectories: true)
    }

    public func deliver(_ push: AcceptedPush) {
        let device = push.device?.name ?? name
        let now = time.now
        let refusal = state.withLock { state -> String? in
            // A clock set back refills nothing (and a jump forward fills at most one second's worth).
            let seconds = max(0, now.timeIntervalSince(state.refilledAt))
            state.refilledAt = max(state.refilledAt, now)
            state.tokens = min(Double(state.perSecond), state.tokens + seconds * Double(state.perSecond))
            guard state.running < maxRunning else { return "the virtual iPhone was running \(maxRunning) extensions already" }
            guard state.tokens >= 1 else {
                return "pushes came faster than the virtual iPhone's \(state.perSecond) extension runs a second (--console-phone-rate): not simulated"
            }
            state.tokens -= 1
            state.running += 1
            return nil
        }
        if let refusal {
            notebook.keep(DeviceNotification(messageID: push.messageID, device: device, receivedAt: push.receivedAt, app: profile.bundleID,
                                             skipped: refusal))
            return
        }
        Task {
            let payload = (try? JSONDocument.parse(push.payload).root) ?? .object(JSONObject())
            let report = await self.runExtension(payload: payload)
            self.state.withLock { $0.running -= 1 }
            self.notebook.keep(push: push, device: device, profile: self.profile, report: report)
        }
    }

    private func runExtension(payload: JSONValue) async -> NSERunReport {
        let store: any PendingMetricStore
        do {
            store = try PendingMetricStores.open(profile: profile, process: .notificationServiceExtension,
                                                 container: workDirectory.appendingPathComponent("container"))
        } catch {
            store = DisabledPendingMetricStore(reason: "\(error)")
        }
        let configuration = NSEConfiguration(profile: profile, budget: budget, store: store,
                                             temporaryDirectory: workDirectory.appendingPathComponent("tmp"))
        return await NotificationServiceExtension(configuration: configuration, transport: transport, clock: clock).run(payload: payload)
    }

    /// The run of the push with this apns-id / FCM name, once its extension finished.
    public func notification(messageID: String) -> DeviceNotification? { notebook.notification(messageID: messageID) }

    /// The newest `limit` runs, newest first.
    public func notifications(limit: Int) -> [DeviceNotification] { notebook.notifications(limit: limit) }

    /// Extensions running now.
    public var runningCount: Int { state.withLock { $0.running } }
}

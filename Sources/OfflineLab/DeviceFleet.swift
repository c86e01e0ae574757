import Foundation
import PushCore
import PushDevice
import PushGateway
import PushHTTP

/// One emulated iPhone app: its profile and its App Group container directory.
public struct FleetMember: Sendable {
    public var profile: AppProfile
    public var container: URL
    public init(profile: AppProfile, container: URL) {
        self.profile = profile
        self.container = container
    }
}

/// What happened on a device to one accepted push.
public struct FleetDelivery: Sendable {
    public var push: AcceptedPush
    public var deviceName: String
    public var report: NSERunReport
}

/// The gateway's delivery sink: every push accepted for a device with an app profile runs
/// through that app's Notification Service Extension, concurrently, as on a phone.
/// `killAt` lets a caller (the demo, the simulator) end an extension process at a chosen moment.
public final class DeviceFleet: PushDeliverySink, @unchecked Sendable {
    private let transport: any HTTPTransport
    private let clock: any NSEClock
    private let budget: Duration
    private let temporaryDirectory: URL
    // `members`, `deliveries`, `running` and `killPolicy` are protected by `lock`.
    private var members: [String: FleetMember] = [:]
    private var deliveries: [FleetDelivery] = []
    private var running = 0
    private var killPolicy: @Sendable (AcceptedPush) -> Duration? = { _ in nil }
    private var observer: (@Sendable (FleetDelivery) -> Void)?
    private let lock = NSLock()
    private let idle = AsyncGate()

    public init(transport: any HTTPTransport, clock: any NSEClock = ScaledClock(), budget: Duration = .seconds(30),
                temporaryDirectory: URL) {
        self.transport = transport
        self.clock = clock
        self.budget = budget
        self.temporaryDirectory = temporaryDirectory
    }

    public func add(deviceNamed name: String, _ member: FleetMember) { lock.withLock { members[name] = member } }
    public func member(named name: String) -> FleetMember? { lock.withLock { members[name] } }

    /// Decides, per push, the emulated instant its extension process is killed (nil: never).
    public func setKillPolicy(_ policy: @escaping @Sendable (AcceptedPush) -> Duration?) { lock.withLock { killPolicy = policy } }

    /// Called with each extension run as it finishes (`pushlab demo --console` shows them).
    public func setObserver(_ observer: @escaping @Sendable (FleetDelivery) -> Void) { lock.withLock { self.observer = observer } }

    public func deliver(_ push: AcceptedPush) {
        guard let name = push.device?.name else { return }
        let setup: (FleetMember, Duration?)? = lock.withLock {
            guard let m = members[name] else { return nil }
            running += 1
            return (m, killPolicy(push))
        }
        guard let (member, killAt) = setup else { return }
        idle.close()
        Task {
            let report = await self.runExtension(push: push, member: member, killAt: killAt)
            let delivery = FleetDelivery(push: push, deviceName: name, report: report)
            let (done, observer) = self.lock.withLock { () -> (Bool, (@Sendable (FleetDelivery) -> Void)?) in
                self.deliveries.append(delivery)
                self.running -= 1
                return (self.running == 0, self.observer)
            }
            observer?(delivery)
            if done { self.idle.open() }
        }
    }

    private func runExtension(push: AcceptedPush, member: FleetMember, killAt: Duration?) async -> NSERunReport {
        let store: any PendingMetricStore
        do {
            store = try PendingMetricStores.open(profile: member.profile, process: .notificationServiceExtension, container: member.container)
        } catch {
            store = DisabledPendingMetricStore(reason: "\(error)")
        }
        let configuration = NSEConfiguration(profile: member.profile, budget: budget, killAt: killAt, store: store,
                                             temporaryDirectory: temporaryDirectory)
        let nse = NotificationServiceExtension(configuration: configuration, transport: transport, clock: clock)
        let payload = (try? JSONDocument.parse(push.payload).root) ?? .object(JSONObject())
        return await nse.run(payload: payload)
    }

    /// Waits until every extension started so far has finished.
    public func waitUntilIdle() async { await idle.wait() }

    /// Every finished extension run, in completion order.
    public var finished: [FleetDelivery] { lock.withLock { deliveries } }
}

/// A gate tasks can wait on until it is open.
final class AsyncGate: @unchecked Sendable {
    // Protected by `lock`.
    private var isOpen = true
    private var waiters: [CheckedContinuation<Void, Never>] = []
    private let lock = NSLock()

    func close() { lock.withLock { isOpen = false } }

    func open() {
        let resumed: [CheckedContinuation<Void, Never>] = lock.withLock {
            isOpen = true
            defer { waiters.removeAll() }
            return waiters
        }
        for w in resumed { w.resume() }
    }

    func wait() async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let resumeNow = lock.withLock { () -> Bool in
                if isOpen { return true }
                waiters.append(c)
                return false
            }
            if resumeNow { c.resume() }
        }
    }
}

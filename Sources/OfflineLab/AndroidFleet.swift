import Foundation
import PushCore
import PushDevice
import PushGateway
import PushHTTP

/// What happened on a virtual Android phone to one FCM message the gateway accepted.
public struct AndroidFleetDelivery: Sendable {
    public var push: AcceptedPush
    public var deviceName: String
    public var report: AndroidReceiveReport
}

/// How a message reaches the phone: the app's state and what happens after it arrives.
public struct AndroidArrival: Sendable {
    public var state: AndroidAppState
    public var conditions: AndroidConditions
    public init(state: AndroidAppState = .background, conditions: AndroidConditions = AndroidConditions()) {
        self.state = state
        self.conditions = conditions
    }
}

/// The gateway's Android deliveries: every FCM message accepted for a device registered as
/// `android` runs through that device's virtual phone (the Customer.io Android SDK,
/// docs/android.md), concurrently. A phone keeps what a process keeps (the duplicate guard, the
/// pending store in its `filesDir`) across messages — unless `phonePerPush` is set: then each
/// message gets a fresh phone and `filesDir`, so that emulated timelines, which each run from
/// arrival to their horizon, cannot claim one another's pending entries (the simulator's setup).
public final class AndroidFleet: @unchecked Sendable {
    private let transport: any HTTPTransport
    private let directory: URL
    // `phones`, `profiles`, `deliveries`, `running`, `arrival` and `pushCount` are protected by `lock`.
    private var profiles: [String: AndroidAppProfile] = [:]
    private var phones: [String: AndroidPhone] = [:]
    private var deliveries: [AndroidFleetDelivery] = []
    private var running = 0
    private var pushCount = 0
    private var arrival: @Sendable (AcceptedPush) -> AndroidArrival = { _ in AndroidArrival() }
    private var isolated = false
    private var observer: (@Sendable (AndroidFleetDelivery) async -> Void)?
    private let lock = NSLock()
    private let idle = AsyncGate()

    /// `directory` holds each phone's `filesDir`.
    public init(transport: any HTTPTransport, directory: URL) {
        self.transport = transport
        self.directory = directory
    }

    /// Each message gets a fresh phone (see the type's documentation).
    public var phonePerPush: Bool {
        get { lock.withLock { isolated } }
        set { lock.withLock { isolated = newValue } }
    }

    public func add(deviceNamed name: String, profile: AndroidAppProfile) { lock.withLock { profiles[name] = profile } }
    public func profile(named name: String) -> AndroidAppProfile? { lock.withLock { profiles[name] } }

    /// The device's phone (created on first use), e.g. for a tap or a launch after a push.
    public func phone(named name: String) throws -> AndroidPhone? {
        try lock.withLock { try phoneLocked(name) }
    }

    /// Called with each handled message before the fleet counts it as finished
    /// (`pushlab demo --console` shows them).
    public func setObserver(_ observer: @escaping @Sendable (AndroidFleetDelivery) async -> Void) { lock.withLock { self.observer = observer } }

    /// Decides, per message, the app state and the conditions after arrival.
    public func setArrival(_ policy: @escaping @Sendable (AcceptedPush) -> AndroidArrival) { lock.withLock { arrival = policy } }

    public func deliver(_ push: AcceptedPush) {
        guard let name = push.device?.name else { return }
        let setup: (AndroidPhone, AndroidArrival)?
        do {
            setup = try lock.withLock { () -> (AndroidPhone, AndroidArrival)? in
                guard let profile = profiles[name] else { return nil }
                pushCount += 1
                let phone = isolated
                    ? try AndroidPhone(profile: profile, transport: transport, filesDir: directory.appendingPathComponent("\(name)/push-\(pushCount)"))
                    : try phoneLocked(name)
                guard let phone else { return nil }
                running += 1
                return (phone, arrival(push))
            }
        } catch {
            setup = nil
        }
        guard let (phone, arrival) = setup else { return }
        idle.close()
        Task {
            let report: AndroidReceiveReport
            if let root = try? JSONDocument.parse(push.payload).root, let message = try? AndroidMessage.parse(root) {
                report = await phone.receive(message, state: arrival.state, conditions: arrival.conditions)
            } else {
                report = await phone.receive(AndroidMessage(), state: arrival.state, conditions: arrival.conditions)
            }
            let delivery = AndroidFleetDelivery(push: push, deviceName: name, report: report)
            await self.lock.withLock { self.observer }?(delivery)
            let done = self.lock.withLock { () -> Bool in
                self.deliveries.append(delivery)
                self.running -= 1
                return self.running == 0
            }
            if done { self.idle.open() }
        }
    }

    private func phoneLocked(_ name: String) throws -> AndroidPhone? {
        if let phone = phones[name] { return phone }
        guard let profile = profiles[name] else { return nil }
        let phone = try AndroidPhone(profile: profile, transport: transport, filesDir: directory.appendingPathComponent(name))
        phones[name] = phone
        return phone
    }

    /// Waits until every message delivered so far has been handled.
    public func waitUntilIdle() async { await idle.wait() }

    /// Every handled message, in completion order.
    public var finished: [AndroidFleetDelivery] { lock.withLock { deliveries } }
}

/// The lab's delivery sink: pushes for iPhones go to the `DeviceFleet`, FCM messages for Android
/// devices to the `AndroidFleet`.
struct LabDeliverySink: PushDeliverySink {
    let iphones: DeviceFleet
    let androids: AndroidFleet
    func deliver(_ push: AcceptedPush) { iphones.deliver(push) }
    func deliverToAndroid(_ push: AcceptedPush) { androids.deliver(push) }
}

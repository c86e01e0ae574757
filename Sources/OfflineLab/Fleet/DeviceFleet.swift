import Foundation
import PushCore
import PushDevice
import PushGateway
import PushHTTP
import Synchronization

/// The gateway's delivery sink: every push accepted for a device with an app profile runs
/// through that app's Notification Service Extension, as on a phone.
/// `killAt` lets a caller (the demo, the simulator) end an extension process at a chosen moment.
///
/// By default a push runs as soon as the gateway hands it over, concurrently with the others.
/// A device given an order with `expect(device:deliveryIDs:extensionsAtOnce:)` (the simulator's
/// fleet) instead runs its pushes in that order, at most `extensionsAtOnce` at a time, each
/// starting only when every push before it has started: which push a phone handles when does
/// not depend on how the gateway's threads interleave.
public final class DeviceFleet: PushDeliverySink, Sendable {
    private let transport: any HTTPTransport
    private let clock: any NSEClock
    private let budget: Duration
    private let temporaryDirectory: URL
    private let state = Mutex(State())
    private let idle = AsyncGate()

    private struct State {
        var members: [String: FleetMember] = [:]
        var deliveries: [FleetDelivery] = []
        var running = 0
        var killPolicy: @Sendable (AcceptedPush) -> Duration? = { _ in nil }
        var killTrigger: @Sendable (AcceptedPush) -> (@Sendable () async -> Void)? = { _ in nil }
        var observer: (@Sendable (FleetDelivery) -> Void)?
        var queues: [String: OrderedQueue] = [:]
        /// Each phone's App Group store as its extension process sees it, opened once: iOS keeps an
        /// extension process for the pushes that follow, so the store file stays open between them
        /// (and the SQLite store's WAL is not re-created and checkpointed for every push).
        var stores: [String: any PendingMetricStore] = [:]
        var runClock: (@Sendable () -> any NSEClock)?

        /// Takes the pushes that may start now on an ordered phone (counted as running).
        mutating func pump(_ name: String) -> [Start] {
            guard var q = queues[name], let member = members[name] else { return [] }
            var start: [Start] = []
            while q.running < q.limit, let push = q.order.takeNext() {
                q.running += 1
                running += 1
                start.append((push, member, killPolicy(push), killTrigger(push)))
            }
            queues[name] = q
            return start
        }

        var isIdle: Bool { running == 0 && !queues.values.contains { $0.pending } }
    }

    /// A push ready to run: the push, its phone, its kill instant and kill event.
    private typealias Start = (push: AcceptedPush, member: FleetMember, killAt: Duration?, killWhen: (@Sendable () async -> Void)?)

    /// One phone's pushes in the order it handles them.
    private struct OrderedQueue {
        var order = PushOrder()
        var running = 0
        var limit = 1
        var pending: Bool { order.pending }
    }

    public init(transport: any HTTPTransport, clock: any NSEClock = ScaledClock(), budget: Duration = .seconds(30),
                temporaryDirectory: URL) {
        self.transport = transport
        self.clock = clock
        self.budget = budget
        self.temporaryDirectory = temporaryDirectory
    }

    public func add(deviceNamed name: String, _ member: FleetMember) {
        state.withLock {
            $0.members[name] = member
            $0.stores[name] = nil
        }
    }
    public func member(named name: String) -> FleetMember? { state.withLock { $0.members[name] } }

    /// Decides, per push, the emulated instant its extension process is killed (nil: never).
    public func setKillPolicy(_ policy: @escaping @Sendable (AcceptedPush) -> Duration?) { state.withLock { $0.killPolicy = policy } }

    /// Decides, per push, an event that kills its extension process (`NSEConfiguration.killWhen`; nil: none).
    public func setKillTrigger(_ trigger: @escaping @Sendable (AcceptedPush) -> (@Sendable () async -> Void)?) {
        state.withLock { $0.killTrigger = trigger }
    }

    /// Gives each extension run a clock of its own (the simulator's `EventClock`) instead of
    /// the fleet's shared one.
    public func setClockPerRun(_ make: @escaping @Sendable () -> any NSEClock) { state.withLock { $0.runClock = make } }

    /// Called with each extension run as it finishes (`pushlab demo --console` shows them).
    public func setObserver(_ observer: @escaping @Sendable (FleetDelivery) -> Void) { state.withLock { $0.observer = observer } }

    /// The next pushes `device` will get, by delivery id, in the order its extensions must
    /// start; at most `extensionsAtOnce` run at once. A push not listed runs on arrival.
    public func expect(device name: String, deliveryIDs: [String], extensionsAtOnce: Int = 1) {
        guard !deliveryIDs.isEmpty else { return }
        let start: [Start] = state.withLock { state in
            idle.close()
            var q = state.queues[name] ?? OrderedQueue()
            q.order.expect(deliveryIDs)
            q.limit = max(1, extensionsAtOnce)
            state.queues[name] = q
            return state.pump(name)
        }
        for s in start { launch(s, ordered: name) }
    }

    /// Pushes that will never arrive (the gateway refused them): the phones stop waiting for them.
    public func skip(deliveryIDs: Set<String>) {
        guard !deliveryIDs.isEmpty else { return }
        let start = state.withLock { state -> [(Start, String)] in
            var start: [(Start, String)] = []
            for name in state.queues.keys {
                state.queues[name]!.order.skip(deliveryIDs)
                start += state.pump(name).map { ($0, name) }
            }
            if state.isIdle { idle.open() }
            return start
        }
        for (s, name) in start { launch(s, ordered: name) }
    }

    public func deliver(_ push: AcceptedPush) {
        guard let name = push.device?.name else { return }
        let ordered: [Start]? = state.withLock { state in
            guard state.queues[name]?.order.arrive(push) == true else { return nil }
            return state.pump(name)
        }
        if let ordered {
            for s in ordered { launch(s, ordered: name) }
            return
        }
        let setup: Start? = state.withLock { state in
            guard let m = state.members[name] else { return nil }
            state.running += 1
            idle.close()
            return (push, m, state.killPolicy(push), state.killTrigger(push))
        }
        if let setup { launch(setup, ordered: nil) }
    }

    /// Runs one extension; on an ordered phone, starts what may follow it.
    private func launch(_ s: Start, ordered: String?) {
        let push = s.push
        guard let name = push.device?.name else { return }
        Task {
            let report = await self.runExtension(push: push, member: s.member, store: self.store(name, s.member), killAt: s.killAt, killWhen: s.killWhen)
            let delivery = FleetDelivery(push: push, deviceName: name, report: report)
            let (start, done, observer) = self.state.withLock { state -> ([Start], Bool, (@Sendable (FleetDelivery) -> Void)?) in
                state.deliveries.append(delivery)
                state.running -= 1
                var start: [Start] = []
                if let ordered {
                    state.queues[ordered]?.running -= 1
                    start = state.pump(ordered)
                }
                return (start, state.isIdle && start.isEmpty, state.observer)
            }
            observer?(delivery)
            for s in start { self.launch(s, ordered: ordered) }
            // Re-checked under the lock: another push may have started since.
            if done { self.state.withLock { if $0.isIdle { self.idle.open() } } }
        }
    }

    /// The extension's store on device `name` (opened on first use).
    private func store(_ name: String, _ member: FleetMember) -> any PendingMetricStore {
        state.withLock { state in
            if let open = state.stores[name] { return open }
            let store: any PendingMetricStore
            do {
                store = try PendingMetricStores.open(profile: member.profile, process: .notificationServiceExtension, container: member.container)
            } catch {
                return DisabledPendingMetricStore(reason: "\(error)")  // not kept: the next push tries again
            }
            state.stores[name] = store
            return store
        }
    }

    private func runExtension(push: AcceptedPush, member: FleetMember, store: any PendingMetricStore, killAt: Duration?,
                              killWhen: (@Sendable () async -> Void)?) async -> NSERunReport {
        var configuration = NSEConfiguration(profile: member.profile, budget: budget, killAt: killAt, store: store,
                                             temporaryDirectory: temporaryDirectory)
        configuration.killWhen = killWhen
        let runClock = state.withLock { $0.runClock }?() ?? clock
        let nse = NotificationServiceExtension(configuration: configuration, transport: transport, clock: runClock)
        let payload = (try? JSONDocument.parse(push.payload).root) ?? .object(JSONObject())
        return await NSERunClock.$current.withValue(runClock) { await nse.run(payload: payload) }
    }

    /// Waits until every extension started so far has finished.
    public func waitUntilIdle() async { await idle.wait() }

    /// Every finished extension run, in completion order.
    public var finished: [FleetDelivery] { state.withLock { $0.deliveries } }
}

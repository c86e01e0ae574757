import Foundation
import PushCore
import PushDevice
import PushGateway
import PushHTTP
import Synchronization

/// The gateway's Android deliveries: every FCM message accepted for a device registered as
/// `android` runs through that device's virtual phone (the Customer.io Android SDK,
/// docs/android.md). A phone keeps what a process keeps (the duplicate guard, the pending store
/// in its `filesDir`) across messages — unless `phonePerPush` is set: then each message gets a
/// fresh phone and `filesDir`.
///
/// By default a message runs as soon as the gateway hands it over, concurrently with the others.
/// A device given an order with `expect(device:deliveryIDs:)` (the simulator's fleet) instead
/// handles its messages one at a time in that order, each message's metric timeline running
/// from its arrival to the horizon before the next message arrives — so what its pending store
/// sees follows from the order, not from thread timing.
public final class AndroidFleet: Sendable {
    private let transport: any HTTPTransport
    private let directory: URL
    private let state = Mutex(State())
    private let idle = AsyncGate()

    private struct State {
        var profiles: [String: AndroidAppProfile] = [:]
        var phones: [String: AndroidPhone] = [:]
        var deliveries: [AndroidFleetDelivery] = []
        var running = 0
        var pushCount = 0
        var arrival: @Sendable (AcceptedPush) -> AndroidArrival = { _ in AndroidArrival() }
        var isolated = false
        var observer: (@Sendable (AndroidFleetDelivery) async -> Void)?
        var queues: [String: OrderedQueue] = [:]

        var isIdle: Bool { running == 0 && !queues.values.contains { $0.pending || !$0.held.isEmpty } }
    }

    /// One phone's messages in the order it handles them.
    private struct OrderedQueue {
        var order = PushOrder()
        var busy = false
        /// Messages received during an offline span whose metric timeline waits for its end.
        var held: [(push: AcceptedPush, report: AndroidReceiveReport, arrival: AndroidArrival)] = []
        var pending: Bool { order.pending }
    }

    /// `directory` holds each phone's `filesDir`.
    public init(transport: any HTTPTransport, directory: URL) {
        self.transport = transport
        self.directory = directory
    }

    /// Each message gets a fresh phone (see the type's documentation).
    public var phonePerPush: Bool {
        get { state.withLock { $0.isolated } }
        set { state.withLock { $0.isolated = newValue } }
    }

    public func add(deviceNamed name: String, profile: AndroidAppProfile) { state.withLock { $0.profiles[name] = profile } }
    public func profile(named name: String) -> AndroidAppProfile? { state.withLock { $0.profiles[name] } }

    /// The device's phone (created on first use), e.g. for a tap or a launch after a push.
    public func phone(named name: String) throws -> AndroidPhone? {
        try state.withLock { try phone(name, in: &$0) }
    }

    /// Called with each handled message before the fleet counts it as finished
    /// (`pushlab demo --console` shows them).
    public func setObserver(_ observer: @escaping @Sendable (AndroidFleetDelivery) async -> Void) { state.withLock { $0.observer = observer } }

    /// Decides, per message, the app state and the conditions after arrival.
    public func setArrival(_ policy: @escaping @Sendable (AcceptedPush) -> AndroidArrival) { state.withLock { $0.arrival = policy } }

    /// The next messages `device` will get, by delivery id, in the order it handles them.
    public func expect(device name: String, deliveryIDs: [String]) {
        guard !deliveryIDs.isEmpty else { return }
        state.withLock { state in
            idle.close()
            var q = state.queues[name] ?? OrderedQueue()
            q.order.expect(deliveryIDs)
            state.queues[name] = q
        }
        pump(name)
    }

    /// Messages that will never arrive (the gateway refused them): the phones stop waiting for them.
    public func skip(deliveryIDs: Set<String>) {
        guard !deliveryIDs.isEmpty else { return }
        let names = state.withLock { state -> [String] in
            for name in state.queues.keys { state.queues[name]!.order.skip(deliveryIDs) }
            return Array(state.queues.keys)
        }
        for name in names { pump(name) }
    }

    public func deliver(_ push: AcceptedPush) {
        guard let name = push.device?.name else { return }
        let ordered = state.withLock { state -> Bool in
            state.queues[name]?.order.arrive(push) == true
        }
        if ordered {
            pump(name)
            return
        }
        let setup: (AndroidPhone, AndroidArrival)?
        do {
            setup = try state.withLock { state -> (AndroidPhone, AndroidArrival)? in
                guard let profile = state.profiles[name] else { return nil }
                state.pushCount += 1
                let phone = state.isolated
                    ? try AndroidPhone(profile: profile, transport: transport, filesDir: directory.appendingPathComponent("\(name)/push-\(state.pushCount)"))
                    : try self.phone(name, in: &state)
                guard let phone else { return nil }
                state.running += 1
                idle.close()
                return (phone, state.arrival(push))
            }
        } catch {
            setup = nil
        }
        guard let (phone, arrival) = setup else { return }
        Task {
            let delivery = await self.handle(push, on: phone, name: name, arrival: arrival, deferMetric: false)
            await self.finish([delivery])
        }
    }

    /// Starts the phone's next message when it has arrived and the phone is free; when the
    /// phone's order is done, runs the metrics an offline span still holds.
    private func pump(_ name: String) {
        enum Step { case run(AcceptedPush, AndroidArrival), release, none }
        let (step, phone): (Step, AndroidPhone?) = state.withLock { state in
            guard var q = state.queues[name], !q.busy, let phone = try? self.phone(name, in: &state) else { return (.none, nil) }
            defer { state.queues[name] = q }
            if let push = q.order.takeNext() {
                q.busy = true
                state.running += 1
                return (.run(push, state.arrival(push)), phone)
            }
            if !q.pending {
                if !q.held.isEmpty {
                    q.busy = true
                    state.running += 1
                    return (.release, phone)
                }
                if state.isIdle { idle.open() }
            }
            return (.none, nil)
        }
        guard let phone else { return }
        Task {
            var finished: [AndroidFleetDelivery] = []
            switch step {
            case .run(let push, let arrival):
                // A message that finds the network back ends the offline span first.
                if arrival.offlineSpacingMs == nil { finished += await self.release(name, on: phone) }
                let held = arrival.offlineSpacingMs != nil
                let delivery = await self.handle(push, on: phone, name: name, arrival: arrival, deferMetric: held)
                if held {
                    self.state.withLock { $0.queues[name]!.held.append((push, delivery.report, arrival)) }
                } else {
                    finished.append(delivery)
                }
            case .release:
                finished += await self.release(name, on: phone)
            case .none:
                break
            }
            self.state.withLock { $0.queues[name]!.busy = false }
            await self.finish(finished)
            self.pump(name)
        }
    }

    /// Runs the held metrics of `name`'s offline span, in arrival order: the network comes back
    /// `offlineSpacingMs` after the span's last message, each later message having arrived that
    /// long after the one before. The app is not opened before the network is back.
    private func release(_ name: String, on phone: AndroidPhone) async -> [AndroidFleetDelivery] {
        let held = state.withLock { state -> [(push: AcceptedPush, report: AndroidReceiveReport, arrival: AndroidArrival)] in
            defer { state.queues[name]?.held.removeAll() }
            return state.queues[name]?.held ?? []
        }
        var out: [AndroidFleetDelivery] = []
        for (i, h) in held.enumerated() {
            var report = h.report
            if report.deliveredTracked, let id = report.deliveryID,
               let token = (try? JSONDocument.parse(h.push.payload).root).flatMap({ try? AndroidMessage.parse($0) })?.deliveryToken {
                var conditions = h.arrival.conditions
                let back = Int64(held.count - i) * (h.arrival.offlineSpacingMs ?? 0)
                conditions.offline.append(AndroidTimeWindow(startMs: 0, endMs: max(back, 1)))
                conditions.launchAtMs = nil
                report.metric = await phone.runDeferredMetric(deliveryID: id, deliveryToken: token, conditions: conditions)
            }
            out.append(AndroidFleetDelivery(push: h.push, deviceName: name, report: report))
        }
        return out
    }

    private func handle(_ push: AcceptedPush, on phone: AndroidPhone, name: String, arrival: AndroidArrival, deferMetric: Bool) async -> AndroidFleetDelivery {
        let message = (try? JSONDocument.parse(push.payload).root).flatMap { try? AndroidMessage.parse($0) } ?? AndroidMessage()
        let report = await phone.receive(message, state: arrival.state, conditions: arrival.conditions, deferMetric: deferMetric)
        return AndroidFleetDelivery(push: push, deviceName: name, report: report)
    }

    /// Counts `deliveries` (and the work that produced them) as finished.
    private func finish(_ finished: [AndroidFleetDelivery]) async {
        if let observer = state.withLock({ $0.observer }) { for d in finished { await observer(d) } }
        state.withLock { state in
            state.deliveries += finished
            state.running -= 1
            if state.isIdle { idle.open() }
        }
    }

    /// The phone of `name` in `state` (created on first use); call it inside `state.withLock`.
    private func phone(_ name: String, in state: inout State) throws -> AndroidPhone? {
        if let phone = state.phones[name] { return phone }
        guard let profile = state.profiles[name] else { return nil }
        let phone = try AndroidPhone(profile: profile, transport: transport, filesDir: directory.appendingPathComponent(name))
        state.phones[name] = phone
        return phone
    }

    /// Waits until every message delivered so far has been handled.
    public func waitUntilIdle() async { await idle.wait() }

    /// Every handled message, in completion order.
    public var finished: [AndroidFleetDelivery] { state.withLock { $0.deliveries } }
}

import Foundation
import PushCore
import PushDevice
import PushGateway
import Synchronization

/// The virtual iPhones' Live Activities, wired to the gateway: Live Activity pushes accepted for
/// an activity token or a push-to-start token, and broadcasts accepted for a channel, are applied
/// by each phone's `LiveActivityHost` on the emulated clock. A broadcast reaches every
/// subscribed activity, spread over the cores; `applied` counts the activities it reached.
public final class LiveActivityFleet: PushDeliverySink, BroadcastDeliverySink, Sendable {
    public let channels: BroadcastChannelRegistry
    private let time: TimeSource
    private let profile: LiveActivityProfile
    private let keepsTimelines: Bool
    /// Told of every push a phone did not apply (dropped, throttled, not decodable), so `serve`
    /// can print it: a refused update is never silent.
    private let onNotApplied: (@Sendable (_ device: String, _ event: LiveActivityTimelineEvent) -> Void)?
    private struct State {
        var hosts: [String: LiveActivityHost] = [:]
        var order: [String] = []
        /// Push-to-start and activity tokens → the phone that owns them.
        var byToken: [String: LiveActivityHost] = [:]
        var appliedCount = 0
    }
    private let state = Mutex(State())
    /// Set when the first phone is made (its push-to-start token is the first entry of
    /// `byToken`; tokens are never removed). Until then a push is for no one here and is passed
    /// over without the lock and the token's hash: `serve` runs a fleet beside the APNs and FCM
    /// routes, which ask it about every push, whether or not any Live Activity exists.
    private let hasPhones = Atomic<Bool>(false)

    public init(channels: BroadcastChannelRegistry, time: TimeSource = SystemTimeSource(),
                profile: LiveActivityProfile = LiveActivityProfile(), keepsTimelines: Bool = true,
                onNotApplied: (@Sendable (_ device: String, _ event: LiveActivityTimelineEvent) -> Void)? = nil) {
        self.onNotApplied = onNotApplied
        self.channels = channels
        self.time = time
        self.profile = profile
        self.keepsTimelines = keepsTimelines
    }

    public var now: Int { Int(time.now.timeIntervalSince1970) }

    /// The phone named `name`, created on first use with its push-to-start token.
    @discardableResult
    public func device(named name: String, bundleID: String = "io.pushlab.demo") -> LiveActivityHost {
        state.withLock { state in
            if let host = state.hosts[name] { return host }
            var hasher = Hasher()
            hasher.combine(name)
            let host = LiveActivityHost(deviceName: name, bundleID: bundleID, profile: profile,
                                        seed: UInt64(bitPattern: Int64(hasher.finalize())), keepsTimeline: keepsTimelines)
            state.hosts[name] = host
            state.order.append(name)
            state.byToken[host.pushToStartToken] = host
            hasPhones.store(true, ordering: .releasing)
            return host
        }
    }

    public var devices: [LiveActivityHost] { state.withLock { state in state.order.compactMap { state.hosts[$0] } } }

    /// Broadcast deliveries and token pushes applied so far (one per activity reached).
    public var applied: Int { state.withLock { $0.appliedCount } }

    /// The app starts an activity (`Activity.request`); with a channel it subscribes, and a
    /// Most-Recent-Message channel replays its stored broadcast to it at once.
    public func startActivity(device name: String, attributesType: String, attributes: JSONValue, contentState: JSONValue,
                              channelID: String? = nil, wantsPushToken: Bool = false,
                              staleDate: Int? = nil) -> Result<[LiveActivityTimelineEvent], ChannelReason> {
        if let channelID, !channels.exists(channelID) { return .failure(.channelNotRegistered) }
        let host = device(named: name)
        var events = host.startLocally(attributesType: attributesType, attributes: attributes, contentState: contentState,
                                       at: now, staleDate: staleDate, wantsPushToken: wantsPushToken, channelID: channelID)
        guard let id = events.first(where: { $0.kind == .started })?.activityID else { return .success(events) }
        if let token = host.activity(id: id)?.pushToken { state.withLock { $0.byToken[token] = host } }
        if let channelID {
            switch channels.subscribe(ChannelSubscriber(deviceName: name, activityID: id), to: channelID) {
            case .failure(let reason): return .failure(reason)
            case .success(let stored?):
                if let push = LiveActivityPush(bytes: stored.payload) {
                    events += host.receive(push, priority: stored.priority, target: .channel(channelID), at: now)
                }
            case .success(nil): break
            }
        }
        return .success(events)
    }

    // MARK: - Sinks

    /// Only pushes addressed to a Live Activity's token (or a push-to-start token) reach a host.
    public func wantsPush(device: EmulatedDevice?, token: String?) -> Bool {
        guard let token, hasPhones.load(ordering: .acquiring) else { return false }
        return state.withLock { $0.byToken[token] != nil }
    }

    public func deliver(_ push: AcceptedPush) {
        guard let token = push.token, hasPhones.load(ordering: .acquiring), let host = state.withLock({ $0.byToken[token] }),
              let la = LiveActivityPush(bytes: push.payload), la.event != nil else { return }
        let target: LiveActivityHost.Target = token == host.pushToStartToken ? .pushToStart : .activityToken(token)
        let events = host.receive(la, priority: push.priority ?? 10, target: target, at: Int(push.receivedAt.timeIntervalSince1970))
        let reached = events.filter { $0.kind == .updated || $0.kind == .ended || $0.kind == .started }.count
        if let onNotApplied { for e in events where e.isRejection { onNotApplied(host.deviceName, e) } }
        for e in events where e.kind == .tokenIssued {
            if let id = e.activityID, let t = host.activity(id: id)?.pushToken { state.withLock { $0.byToken[t] = host } }
        }
        // A push-started activity with input-push-channel joins that channel.
        for e in events where e.kind == .subscribed {
            if let id = e.activityID, let channel = host.activity(id: id)?.channelID {
                _ = channels.subscribe(ChannelSubscriber(deviceName: host.deviceName, activityID: id), to: channel)
            }
        }
        if reached > 0 { state.withLock { $0.appliedCount += reached } }
    }

    public func deliver(_ broadcast: AcceptedBroadcast, to subscribers: [ChannelSubscriber]) {
        guard let push = LiveActivityPush(bytes: broadcast.payload) else { return }
        let at = Int(broadcast.receivedAt.timeIntervalSince1970)
        let channel = broadcast.channelID, priority = broadcast.priority
        // Off the event loop: the APNs answer does not wait for the fan-out.
        Task.detached { [self] in
            // Each phone once, however many of its activities subscribe (the host fans out inside).
            var seen = Set<String>()
            let phones = state.withLock { state in subscribers.compactMap { s -> LiveActivityHost? in seen.insert(s.deviceName).inserted ? state.hosts[s.deviceName] : nil } }
            let workers = max(1, min(ProcessInfo.processInfo.activeProcessorCount, phones.count / 1000 + 1))
            let counts = UnsafeCounts(workers)
            DispatchQueue.concurrentPerform(iterations: workers) { w in
                var reached = 0
                var i = w
                while i < phones.count {
                    let events = phones[i].receive(push, priority: priority, target: .channel(channel), at: at)
                    for e in events where e.kind == .updated || e.kind == .ended { reached += 1 }
                    if let onNotApplied { for e in events where e.isRejection { onNotApplied(phones[i].deviceName, e) } }
                    i += workers
                }
                counts.set(w, reached)
            }
            let total = counts.sum
            state.withLock { $0.appliedCount += total }
        }
    }
}

/// One slot per worker, each written by its own worker only.
private final class UnsafeCounts: Sendable {
    private let slots: Mutex<[Int]>
    init(_ n: Int) { slots = Mutex(Array(repeating: 0, count: n)) }
    func set(_ i: Int, _ v: Int) { slots.withLock { $0[i] = v } }
    var sum: Int { slots.withLock { $0.reduce(0, +) } }
}

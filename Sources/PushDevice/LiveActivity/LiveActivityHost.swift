import Foundation
import PushCore
import PushHTTP

/// The virtual iPhone's ActivityKit for one app: its Live Activities, its push-to-start token,
/// the priority-10 update budget, and a timeline of what each push did. Pushes arrive with the
/// emulated time they are received (UNIX seconds), so stale and dismissal timing needs no waiting.
///
/// Thread-safe: the gateway's delivery and a reader (CLI, admin route) may call it concurrently.
public final class LiveActivityHost: Sendable {
    /// Where a push was addressed.
    public enum Target: Sendable, Hashable {
        /// `/3/device/<token>` with an activity's own push token.
        case activityToken(String)
        /// `/3/device/<token>` with the app's push-to-start token.
        case pushToStart
        /// A broadcast on this channel.
        case channel(String)
    }

    public let deviceName: String
    public let bundleID: String
    public let profile: LiveActivityProfile
    /// The app's push-to-start token (`pushToStartTokenUpdates`; the same for every attributes type).
    public let pushToStartToken: String
    /// Keep a per-host timeline (off for large fan-out runs).
    public let keepsTimeline: Bool

    private let state: SanitizerVisibleMutex<State>

    /// What the rules below change, each call under `state`'s lock.
    private struct State {
        var activities: [LiveActivity] = []
        var budget: LiveActivityUpdateBudget
        var timeline: [LiveActivityTimelineEvent] = []
        var random: SeededRandom
    }

    public init(deviceName: String, bundleID: String, profile: LiveActivityProfile = LiveActivityProfile(), seed: UInt64 = 1,
                budget: LiveActivityUpdateBudget? = nil, keepsTimeline: Bool = true) {
        self.deviceName = deviceName
        self.bundleID = bundleID
        self.profile = profile
        self.keepsTimeline = keepsTimeline
        var random = SeededRandom(seed: seed)
        pushToStartToken = LiveActivityHost.token(&random)
        state = SanitizerVisibleMutex(State(budget: budget ?? .standard(frequentUpdates: profile.frequentUpdates), random: random))
    }

    /// 32 random bytes in hex, shaped like an APNs token.
    static func token(_ random: inout SeededRandom) -> String {
        (0..<4).map { _ in String(random.next(), radix: 16).leftPadded(to: 16) }.joined()
    }

    public var snapshot: [LiveActivity] { state.withLock { $0.activities } }
    public var events: [LiveActivityTimelineEvent] { state.withLock { $0.timeline } }
    public func activity(id: String) -> LiveActivity? { state.withLock { $0.activities.first { $0.id == id } } }

    /// `Activity.request(attributes:content:pushType:)` from the app: `pushType: .token` issues an
    /// update token; `.channel(id)` subscribes to a broadcast channel.
    @discardableResult
    public func startLocally(attributesType: String, attributes: JSONValue, contentState: JSONValue, at now: Int,
                             staleDate: Int? = nil, relevanceScore: Double? = nil, wantsPushToken: Bool = false,
                             channelID: String? = nil) -> [LiveActivityTimelineEvent] {
        state.withLock { state in
            var out: [LiveActivityTimelineEvent] = []
            // No push has been applied yet: any pushed update is newer (timestamp 0).
            start(attributesType: attributesType, attributes: attributes, contentState: contentState, at: now, timestamp: 0,
                  staleDate: staleDate, relevanceScore: relevanceScore, wantsPushToken: wantsPushToken, channelID: channelID,
                  how: "started by the app", in: &state, into: &out)
            record(out, in: &state)
            return out
        }
    }

    /// Applies one Live Activity push as iOS would and returns what it did. Broadcasts reach every
    /// activity subscribed to the channel; a token push reaches the activity with that token.
    @discardableResult
    public func receive(_ push: LiveActivityPush, priority: Int = 10, target: Target, at now: Int) -> [LiveActivityTimelineEvent] {
        state.withLock { state in
            var out: [LiveActivityTimelineEvent] = []
            advance(to: now, in: &state, into: &out)
            apply(push, priority: priority, target: target, at: now, in: &state, into: &out)
            record(out, in: &state)
            return out
        }
    }

    /// Moves the emulated clock: stale-dates, the 8-hour limit and dismissals that fall due.
    @discardableResult
    public func advance(to now: Int) -> [LiveActivityTimelineEvent] {
        state.withLock { state in
            var out: [LiveActivityTimelineEvent] = []
            advance(to: now, in: &state, into: &out)
            record(out, in: &state)
            return out
        }
    }

    /// Ids of the activities subscribed to `channelID` that can still change.
    public func subscribers(of channelID: String) -> [String] {
        state.withLock { $0.activities.filter { $0.channelID == channelID && $0.phase != .dismissed }.map(\.id) }
    }

    // MARK: - Rules (docs/specs/apns.md "Per-device Live Activity pushes")

    private func apply(_ push: LiveActivityPush, priority: Int, target: Target, at now: Int, in state: inout State,
                       into out: inout [LiveActivityTimelineEvent]) {
        guard let event = push.event else {
            out.append(LiveActivityTimelineEvent(at: now, activityID: nil, kind: .dropped, detail: "no aps.event: iOS ignores the push (add \"event\": \"update\")"))
            return
        }
        guard let timestamp = push.timestamp else {
            out.append(LiveActivityTimelineEvent(at: now, activityID: nil, kind: .dropped, detail: "no aps.timestamp: iOS cannot order it (add \"timestamp\": <UNIX seconds>)"))
            return
        }
        if event == .start {
            startByPush(push, event: event, timestamp: timestamp, target: target, at: now, in: &state, into: &out)
            return
        }
        let indices: [Int]
        switch target {
        case .activityToken(let token): indices = state.activities.indices.filter { state.activities[$0].pushToken == token }
        case .channel(let id): indices = state.activities.indices.filter { state.activities[$0].channelID == id }
        case .pushToStart:
            out.append(LiveActivityTimelineEvent(at: now, activityID: nil, kind: .dropped,
                                         detail: "an \(event.rawValue) sent to the push-to-start token: only start uses that token (send updates to the activity's own push token or its channel)"))
            return
        }
        if indices.isEmpty {
            out.append(LiveActivityTimelineEvent(at: now, activityID: nil, kind: .dropped, detail: "no activity has this \(target.noun): nothing to \(event.rawValue)"))
            return
        }
        let admitted = priority < 10 || state.budget.admit(at: now)
        let budget = state.budget
        for i in indices {
            let first = out.count
            update(&state.activities[i], push, event: event, timestamp: timestamp, admitted: admitted, budget: budget, at: now, into: &out)
            // A push that was not applied leaves a trace on the activity (`activity list`).
            if let refusal = out[first...].last(where: \.isRejection) { state.activities[i].recordNotApplied(refusal) }
        }
    }

    private func update(_ activity: inout LiveActivity, _ push: LiveActivityPush, event: PushCore.LiveActivityEvent, timestamp: Int,
                        admitted: Bool, budget: LiveActivityUpdateBudget, at now: Int, into out: inout [LiveActivityTimelineEvent]) {
        let id = activity.id
        if activity.phase == .ended || activity.phase == .dismissed {
            out.append(LiveActivityTimelineEvent(at: now, activityID: id, kind: .dropped, detail: "the activity has ended: \(event.rawValue) ignored"))
            return
        }
        if LiveActivityLimits.isOlderThanShown(timestamp, shown: activity.timestamp) {
            out.append(LiveActivityTimelineEvent(at: now, activityID: id, kind: .dropped,
                                         detail: "timestamp \(timestamp) is older than the shown state's \(activity.timestamp): iOS keeps the newer one (APNs may reorder pushes)"))
            return
        }
        if let problem = LiveActivityLimits.timestampProblem(timestamp, now: now) {
            out.append(LiveActivityTimelineEvent(at: now, activityID: id, kind: .dropped, detail: problem))
            return
        }
        if !admitted {
            out.append(LiveActivityTimelineEvent(at: now, activityID: id, kind: .throttled,
                                         detail: "over the priority-10 budget (pushlab model: \(budget.capacity) immediate updates, one more every \(budget.refillSeconds) s): send routine updates with apns-priority 5, or set NSSupportsLiveActivitiesFrequentUpdates"))
            return
        }
        if let state = push.contentState {
            if let problem = contentStateProblem(state, attributesType: activity.attributesType, at: now, id: id) {
                out.append(problem)
                return
            }
            activity.contentState = state
        } else if event == .update {
            out.append(LiveActivityTimelineEvent(at: now, activityID: id, kind: .decodingFailed, detail: "an update without content-state: nothing to show"))
            return
        }
        activity.timestamp = timestamp
        if let stale = push.staleDate { activity.staleDate = stale }
        if let score = push.relevanceScore { activity.relevanceScore = score }
        if event == .end {
            activity.phase = .ended
            // No dismissal-date: the system decides (pushlab: the longest it may stay, 4 hours).
            let dismissal = push.dismissalDate.map { max($0, now) } ?? now + LiveActivityLimits.maximumLockScreenSecondsAfterEnd
            activity.dismissalDate = min(dismissal, now + LiveActivityLimits.maximumLockScreenSecondsAfterEnd)
            out.append(LiveActivityTimelineEvent(at: now, activityID: id, kind: .ended,
                                         detail: push.dismissalDate == nil ? "ended; no dismissal-date, so the system removes it within 4 hours"
                                                                           : "ended; leaves the Lock Screen at \(activity.dismissalDate!)"))
        } else {
            if activity.phase == .stale, activity.staleDate.map({ $0 > now }) ?? true { activity.phase = .active }
            out.append(LiveActivityTimelineEvent(at: now, activityID: id, kind: .updated, detail: "content-state \(activity.contentState.minifiedText)"))
        }
        for change in activity.advance(to: now) { out.append(LiveActivityTimelineEvent(at: change.at, activityID: id, kind: change.kind, detail: change.detail)) }
    }

    private func startByPush(_ push: LiveActivityPush, event: PushCore.LiveActivityEvent, timestamp: Int, target: Target, at now: Int,
                             in state: inout State, into out: inout [LiveActivityTimelineEvent]) {
        guard target == .pushToStart else {
            out.append(LiveActivityTimelineEvent(at: now, activityID: nil, kind: .dropped,
                                         detail: "a start sent to \(target.noun): push-to-start needs the app's push-to-start token (iOS 17.2+)"))
            return
        }
        guard let type = push.attributesType, let attributes = push.attributes else {
            out.append(LiveActivityTimelineEvent(at: now, activityID: nil, kind: .decodingFailed,
                                         detail: "a start without attributes-type and attributes: iOS cannot create the activity (add both)"))
            return
        }
        guard let contentState = push.contentState else {
            out.append(LiveActivityTimelineEvent(at: now, activityID: nil, kind: .decodingFailed, detail: "a start without content-state"))
            return
        }
        if !profile.activities.isEmpty {
            guard let schema = profile.schema(for: type) else {
                out.append(LiveActivityTimelineEvent(at: now, activityID: nil, kind: .decodingFailed,
                                             detail: "the app declares no ActivityAttributes type \"\(type)\" (it has \(profile.activities.map(\.attributesType).joined(separator: ", "))): nothing starts"))
                return
            }
            if let failure = LiveActivitySchema.decodingFailure(attributes, as: schema.attributes, at: "attributes") {
                out.append(LiveActivityTimelineEvent(at: now, activityID: nil, kind: .decodingFailed, detail: "\(type) attributes do not decode: \(failure)"))
                return
            }
        }
        if let problem = contentStateProblem(contentState, attributesType: type, at: now, id: nil) {
            out.append(problem)
            return
        }
        start(attributesType: type, attributes: attributes, contentState: contentState, at: now, timestamp: timestamp,
              staleDate: push.staleDate, relevanceScore: push.relevanceScore, wantsPushToken: push.inputPushToken,
              channelID: push.inputPushChannel, how: "started by push-to-start", in: &state, into: &out)
    }

    private func start(attributesType: String, attributes: JSONValue, contentState: JSONValue, at now: Int, timestamp: Int,
                       staleDate: Int?, relevanceScore: Double?, wantsPushToken: Bool, channelID: String?, how: String,
                       in state: inout State, into out: inout [LiveActivityTimelineEvent]) {
        let id = "LA-" + String(state.random.next() & 0xFFFF_FFFF, radix: 16).uppercased().leftPadded(to: 8)
        var activity = LiveActivity(id: id, attributesType: attributesType, attributes: attributes, contentState: contentState,
                                    startedAt: now, timestamp: timestamp, staleDate: staleDate, relevanceScore: relevanceScore,
                                    channelID: channelID)
        out.append(LiveActivityTimelineEvent(at: now, activityID: id, kind: .started, detail: "\(attributesType) \(how); content-state \(contentState.minifiedText)"))
        if wantsPushToken {
            let token = LiveActivityHost.token(&state.random)
            activity.pushToken = token
            out.append(LiveActivityTimelineEvent(at: now, activityID: id, kind: .tokenIssued,
                                         detail: "pushTokenUpdates issued the activity's update token \(token.prefix(8))…; the app reports it to its server"))
        }
        if let channelID {
            out.append(LiveActivityTimelineEvent(at: now, activityID: id, kind: .subscribed, detail: "subscribed to broadcast channel \(channelID)"))
        }
        for change in activity.advance(to: now) { out.append(LiveActivityTimelineEvent(at: change.at, activityID: id, kind: change.kind, detail: change.detail)) }
        state.activities.append(activity)
    }

    /// The size cap and the app's ContentState schema, as iOS applies them.
    private func contentStateProblem(_ state: JSONValue, attributesType: String, at now: Int, id: String?) -> LiveActivityTimelineEvent? {
        let size = state.minifiedBytes().count
        if size > LiveActivityLimits.contentStateMaximumBytes {
            return LiveActivityTimelineEvent(at: now, activityID: id, kind: .tooLarge,
                                     detail: "content-state is \(size) bytes; iOS caps an activity's dynamic data at \(LiveActivityLimits.contentStateMaximumBytes)")
        }
        if let schema = profile.schema(for: attributesType),
           let failure = LiveActivitySchema.decodingFailure(state, as: schema.contentState, at: "content-state") {
            return LiveActivityTimelineEvent(at: now, activityID: id, kind: .decodingFailed,
                                     detail: "\(attributesType).ContentState does not decode: \(failure); the update is dropped (APNs still answered 200)")
        }
        return nil
    }

    private func advance(to now: Int, in state: inout State, into out: inout [LiveActivityTimelineEvent]) {
        for i in state.activities.indices {
            for change in state.activities[i].advance(to: now) {
                out.append(LiveActivityTimelineEvent(at: change.at, activityID: state.activities[i].id, kind: change.kind, detail: change.detail))
            }
        }
    }

    private func record(_ events: [LiveActivityTimelineEvent], in state: inout State) {
        if keepsTimeline { state.timeline.append(contentsOf: events) }
    }
}

extension LiveActivityHost.Target {
    var noun: String {
        switch self {
        case .activityToken: return "push token"
        case .pushToStart: return "push-to-start token"
        case .channel(let id): return "channel (\(id))"
        }
    }
}

extension JSONValue {
    /// Minified JSON text, for timelines.
    var minifiedText: String { String(decoding: minifiedBytes(), as: UTF8.self) }
}

extension String {
    func leftPadded(to width: Int) -> String { count >= width ? self : String(repeating: "0", count: width - count) + self }
}

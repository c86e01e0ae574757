import Foundation
import PushCore

/// One Live Activity on the virtual iPhone: what the Lock Screen shows and the facts that decide
/// what happens to the next push. Kept small (shared JSON storage, no per-activity history) so
/// a broadcast can reach many of them (benchmarks/results/live-activities.md).
public struct LiveActivity: Sendable, Hashable {
    public enum Phase: String, Sendable, Hashable {
        /// On the Lock Screen with current content.
        case active
        /// Past its stale-date: the widget renders its stale view until a newer update arrives.
        case stale
        /// Ended (by an end push, or the 8-hour limit); still on the Lock Screen until dismissed.
        case ended
        /// Removed from the Lock Screen.
        case dismissed
    }

    public var id: String
    public var attributesType: String
    public var attributes: JSONValue
    public var contentState: JSONValue
    public var phase: Phase
    /// When it started (UNIX seconds); the system ends it 8 hours later.
    public var startedAt: Int
    /// The newest push timestamp applied; older pushes are dropped.
    public var timestamp: Int
    public var staleDate: Int?
    /// When an ended activity leaves the Lock Screen.
    public var dismissalDate: Int?
    public var relevanceScore: Double?
    /// The activity's own push token (asked for with `input-push-token: 1`, or a local start
    /// with token updates).
    public var pushToken: String?
    /// The broadcast channel it is subscribed to.
    public var channelID: String?
    /// Pushes addressed to it that were not applied (dropped, throttled, not decodable), and
    /// the newest one's reason: what `activity list` shows beside the state.
    public var notApplied = 0
    public var lastNotApplied: LiveActivityTimelineEvent?
    /// The widget's tap URL for the content shown (Customer.io: the tracking URL built from
    /// `content-state.cioMetadata`).
    public var widgetURL: String? { CIOLiveActivityTrackingURL.url(forContentState: contentState) }

    public init(id: String, attributesType: String, attributes: JSONValue, contentState: JSONValue, startedAt: Int,
                timestamp: Int, staleDate: Int? = nil, relevanceScore: Double? = nil, pushToken: String? = nil,
                channelID: String? = nil) {
        self.id = id
        self.attributesType = attributesType
        self.attributes = attributes
        self.contentState = contentState
        phase = .active
        self.startedAt = startedAt
        self.timestamp = timestamp
        self.staleDate = staleDate
        self.relevanceScore = relevanceScore
        self.pushToken = pushToken
        self.channelID = channelID
    }

    mutating func recordNotApplied(_ event: LiveActivityTimelineEvent) {
        notApplied += 1
        lastNotApplied = event
    }

    /// Moves the activity's clock to `now`: stale-date, the 8-hour limit, dismissal.
    /// Returns what changed, in order.
    mutating func advance(to now: Int) -> [(at: Int, kind: LiveActivityTimelineEvent.Kind, detail: String)] {
        var out: [(Int, LiveActivityTimelineEvent.Kind, String)] = []
        if phase == .active, let stale = staleDate, now >= stale {
            phase = .stale
            out.append((stale, .stale, "stale-date \(stale) passed: the widget shows its stale view"))
        }
        let limit = startedAt + LiveActivityLimits.maximumActiveSeconds
        if phase == .active || phase == .stale, now >= limit {
            phase = .ended
            dismissalDate = limit + LiveActivityLimits.maximumLockScreenSecondsAfterEnd
            out.append((limit, .ended, "active for 8 hours: the system ends it (it may stay on the Lock Screen 4 more hours)"))
        }
        if phase == .ended, let dismissal = dismissalDate, now >= dismissal {
            phase = .dismissed
            out.append((dismissal, .dismissed, "removed from the Lock Screen (dismissal-date \(dismissal))"))
        }
        return out
    }
}

import Foundation

/// Something that happened to an activity, for the timeline.
public struct LiveActivityTimelineEvent: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable {
        case started, updated, ended, stale, dismissed, tokenIssued = "token-issued", subscribed
        /// The push was not applied; `detail` says why and what to do.
        case dropped, throttled, decodingFailed = "decoding-failed", tooLarge = "too-large"
    }
    /// UNIX seconds on the emulated clock.
    public var at: Int
    public var activityID: String?
    public var kind: Kind
    public var detail: String

    public init(at: Int, activityID: String?, kind: Kind, detail: String) {
        self.at = at
        self.activityID = activityID
        self.kind = kind
        self.detail = detail
    }

    /// True when the push it reports was not applied.
    public var isRejection: Bool { [.dropped, .throttled, .decodingFailed, .tooLarge].contains(kind) }
}

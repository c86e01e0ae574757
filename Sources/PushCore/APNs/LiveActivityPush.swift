import Foundation

/// The `event` of a Live Activity push (docs/specs/apns.md "Per-device Live Activity pushes").
public enum LiveActivityEvent: String, Sendable, Hashable, CaseIterable {
    case start, update, end
}

/// Limits iOS applies to Live Activities (docs/specs/apns.md "Per-device Live Activity pushes").
public enum LiveActivityLimits {
    /// An activity's dynamic data (its encoded content-state) is capped at 4 KB.
    public static let contentStateMaximumBytes = 4096
    /// Active for at most 8 hours, then the system ends it…
    public static let maximumActiveSeconds = 8 * 3600
    /// …and it may stay on the Lock Screen up to 4 more hours (12 in all).
    public static let maximumLockScreenSecondsAfterEnd = 4 * 3600
    /// A timestamp further ahead of the phone's clock than the longest life of an activity is
    /// dropped (Apple staff, forums thread 776165; docs/specs/apns.md).
    public static let maximumTimestampSecondsAhead = 8 * 3600

    /// docs/specs/apns.md "Per-device Live Activity pushes": iOS ignores an update whose
    /// timestamp is *older* than the state it shows (ActivityKit `update(_:alertConfiguration:
    /// timestamp:)`); one stamped with the same second is not older and is applied.
    public static func isOlderThanShown(_ timestamp: Int, shown: Int) -> Bool { timestamp < shown }

    /// Why a push stamped `timestamp` cannot win on a phone whose clock reads `now`, or nil.
    public static func timestampProblem(_ timestamp: Int, now: Int) -> String? {
        guard timestamp > now + maximumTimestampSecondsAhead else { return nil }
        return "timestamp \(timestamp) is \(timestamp - now) s ahead of the clock; iOS drops a timestamp more than \(maximumTimestampSecondsAhead / 3600) hours ahead"
    }
}

/// What a Live Activity push says, read from its `aps` dictionary: the fields ActivityKit acts
/// on. Reading is strict where iOS is: a field of the wrong type is absent here (the validator
/// reports it).
public struct LiveActivityPush: Sendable, Hashable {
    public var event: LiveActivityEvent?
    /// UNIX seconds; iOS renders only the newest content state.
    public var timestamp: Int?
    public var contentState: JSONValue?
    public var staleDate: Int?
    public var dismissalDate: Int?
    public var relevanceScore: Double?
    /// start only: the `ActivityAttributes` type and its static fields.
    public var attributesType: String?
    public var attributes: JSONValue?
    public var alert: APS.Alert?
    /// start only: `input-push-token: 1` asks iOS for the new activity's update token.
    public var inputPushToken: Bool
    /// start only: the broadcast channel the started activity subscribes to.
    public var inputPushChannel: String?

    public init(event: LiveActivityEvent? = nil, timestamp: Int? = nil, contentState: JSONValue? = nil,
                staleDate: Int? = nil, dismissalDate: Int? = nil, relevanceScore: Double? = nil,
                attributesType: String? = nil, attributes: JSONValue? = nil, alert: APS.Alert? = nil,
                inputPushToken: Bool = false, inputPushChannel: String? = nil) {
        self.event = event
        self.timestamp = timestamp
        self.contentState = contentState
        self.staleDate = staleDate
        self.dismissalDate = dismissalDate
        self.relevanceScore = relevanceScore
        self.attributesType = attributesType
        self.attributes = attributes
        self.alert = alert
        self.inputPushToken = inputPushToken
        self.inputPushChannel = inputPushChannel
    }

    /// Reads `payload["aps"]`; nil when the payload has no `aps` object.
    public init?(payload: JSONValue) {
        guard let aps = payload["aps"]?.objectValue else { return nil }
        let common = APS(aps: aps)
        self.init(event: aps["event"]?.stringValue.flatMap(LiveActivityEvent.init(rawValue:)),
                  timestamp: common.timestamp,
                  contentState: aps["content-state"].flatMap { $0.objectValue != nil ? $0 : nil },
                  staleDate: common.staleDate, dismissalDate: common.dismissalDate,
                  relevanceScore: common.relevanceScore,
                  attributesType: aps["attributes-type"]?.stringValue,
                  attributes: aps["attributes"].flatMap { $0.objectValue != nil ? $0 : nil },
                  alert: common.alert,
                  inputPushToken: APS.isOne(aps["input-push-token"]),
                  inputPushChannel: aps["input-push-channel"]?.stringValue)
    }

    /// Reads a payload's bytes; nil when they are not a JSON object with `aps`.
    public init?(bytes: [UInt8]) {
        guard let document = try? JSONDocument.parse(bytes) else { return nil }
        self.init(payload: document.root)
    }
}

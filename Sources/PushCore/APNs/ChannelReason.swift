/// The `reason` of a channel-management or broadcast error answer (docs/specs/apns.md "Channel
/// management", reason table as transcribed by hapns). Reasons the device-push API shares
/// (`BadPath`, `InvalidProviderToken`, `BadExpirationDate` …) are `APNsReason`s, so each
/// reason has one definition; only the channel-only ones are cases of their own.
public enum ChannelReason: Error, Sendable, Hashable, CustomStringConvertible {
    case featureNotEnabled, missingChannelId, badChannelId, channelNotRegistered
    case badRequestParams, badRequestPayload, missingPushType, cannotCreateChannelConfig
    /// Observed, undocumented: create without `message-storage-policy` (hapns).
    case missingChannelQueueSize
    /// A reason shared with the device-push API (or one neither table knows, as `.other`).
    case apns(APNsReason)

    public static let channelOnly: [ChannelReason] = [
        .featureNotEnabled, .missingChannelId, .badChannelId, .channelNotRegistered, .badRequestParams,
        .badRequestPayload, .missingPushType, .cannotCreateChannelConfig, .missingChannelQueueSize,
    ]

    public init(rawValue: String) {
        self = ChannelReason.channelOnly.first { $0.rawValue == rawValue } ?? .apns(APNsReason(rawValue: rawValue))
    }

    public var rawValue: String {
        switch self {
        case .featureNotEnabled: return "FeatureNotEnabled"
        case .missingChannelId: return "MissingChannelId"
        case .badChannelId: return "BadChannelId"
        case .channelNotRegistered: return "ChannelNotRegistered"
        case .badRequestParams: return "BadRequestParams"
        case .badRequestPayload: return "BadRequestPayload"
        case .missingPushType: return "MissingPushType"
        case .cannotCreateChannelConfig: return "CannotCreateChannelConfig"
        case .missingChannelQueueSize: return "MissingChannelQueueSize"
        case .apns(let reason): return reason.rawValue
        }
    }

    public var description: String { rawValue }

    /// The HTTP status this reason comes with; every channel-only reason is a 400.
    public var status: Int? {
        if case .apns(let reason) = self { return reason.status }
        return 400
    }

    /// What to do about it.
    public var fix: String {
        switch self {
        case .featureNotEnabled: return "enable the Broadcast capability for the app id (developer account > Identifiers > Push Notifications)"
        case .missingChannelId: return "send the channel id in the apns-channel-id header (pushlab: --channel ID)"
        case .badChannelId: return "pass the base64 channel id exactly as `pushlab channels create` printed it"
        case .channelNotRegistered: return "the channel does not exist (deleted, or another bundle id/environment); list them with `pushlab channels list`"
        case .badRequestParams: return "message-storage-policy must be 0 (no-storage) or 1 (most-recent)"
        case .badRequestPayload: return "send a JSON object body"
        case .missingPushType: return "add \"push-type\": \"LiveActivity\" to the create body"
        case .cannotCreateChannelConfig: return "the app has reached the channel limit (10,000 per environment): delete channels whose events are over"
        case .missingChannelQueueSize: return "add \"message-storage-policy\": 0 or 1 to the create body"
        case .apns(let reason): return reason.fix
        }
    }
}

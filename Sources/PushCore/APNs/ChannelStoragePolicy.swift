/// What APNs keeps for a broadcast channel's subscribers that are offline when a broadcast is
/// sent (docs/specs/apns.md "Channel management"): `message-storage-policy` 0 or 1.
public enum ChannelStoragePolicy: Int, Sendable, Hashable, CaseIterable {
    /// "No Storage": only devices connected at send time get the message; broadcasts on such a
    /// channel must carry `apns-expiration: 0`.
    case noStorage = 0
    /// "Most Recent Message": the latest deferred message is kept for each subscriber.
    case mostRecentMessage = 1

    /// The name pushlab's flags and output use.
    public var name: String {
        switch self {
        case .noStorage: return "no-storage"
        case .mostRecentMessage: return "most-recent"
        }
    }

    /// From a flag value: the name or the wire number.
    public init?(name: String) {
        switch name {
        case "no-storage", "0": self = .noStorage
        case "most-recent", "most-recent-message", "1": self = .mostRecentMessage
        default: return nil
        }
    }
}

/// What became of one SDK call (docs/specs/retainza.md §4, §6, §7).
public enum RetainzaSendOutcome: Sendable, Equatable, CustomStringConvertible {
    /// The ingest API answered 2xx.
    case delivered(status: Int)
    /// A network error or a 5xx: the call waits in the offline queue.
    case queued(reason: String)
    /// Calls were already waiting: this one went behind them, to keep the order.
    case queuedBehind
    /// A 4xx: never queued, the call is gone.
    case rejected(status: Int)
    /// A call that is never queued (push registration, unregistration, acks) failed: it is lost.
    case failed(reason: String)
    /// `requireConsent` is on and `setConsent(analytics: true)` was not called this launch.
    case droppedNoConsent
    /// `optOut()` is in force.
    case droppedOptedOut
    /// The same token was registered for the same user less than 24 hours ago.
    case skippedRecentlyRegistered
    /// `handleDeviceToken`: a warning, nothing registered.
    case ignoredDeprecated

    public var description: String {
        switch self {
        case .delivered(let s): return "delivered (\(s))"
        case .queued(let r): return "queued (\(r))"
        case .queuedBehind: return "queued behind waiting calls"
        case .rejected(let s): return "rejected (\(s)), not queued"
        case .failed(let r): return "lost (\(r)), never queued"
        case .droppedNoConsent: return "dropped: no consent this launch"
        case .droppedOptedOut: return "dropped: opted out"
        case .skippedRecentlyRegistered: return "skipped: registered less than 24 h ago"
        case .ignoredDeprecated: return "ignored: handleDeviceToken no longer registers"
        }
    }
}

/// `handleFCMToken` / `registerPush` throws this without a user (docs/specs/retainza.md §4).
public enum RetainzaCallError: Error, Sendable, Equatable {
    case missingUserId
}

/// A send budget shared by every relay node: a token bucket kept in Redis and updated by one
/// Lua script, so nodes never overspend it together (FCM: 600,000 messages per minute per
/// project, docs/specs/fcm.md; a per-app budget the same way).
///
/// The bucket holds at most `burst` tokens and refills continuously at `(limit - burst) / window`,
/// so no `window`-long span ever grants more than `limit`. Time is Redis's own clock (`TIME`
/// inside the script), the one clock all nodes share.
public struct RateBudget: Sendable, Hashable {
    public var limit: Int
    public var window: Duration
    public var burst: Int

    /// `burst` defaults to one second's share of the limit.
    public init(limit: Int, per window: Duration, burst: Int? = nil) {
        precondition(limit > 0 && window > .zero, "a budget needs a positive limit and window")
        let seconds = Double(window.milliseconds) / 1000
        self.limit = limit
        self.window = window
        self.burst = max(1, min(limit, burst ?? Int((Double(limit) / max(seconds, 1)).rounded(.down))))
    }

    /// FCM's default per-project quota: 600,000 messages per minute.
    public static let fcmProject = RateBudget(limit: 600_000, per: .seconds(60))

    /// Tokens added per millisecond.
    var refillPerMillisecond: Double {
        Double(limit - burst) / Double(max(window.milliseconds, 1))
    }
}

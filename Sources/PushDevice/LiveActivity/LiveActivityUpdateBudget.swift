import Foundation

/// The priority-10 update budget of one app's Live Activities. Apple publishes no numbers
/// (docs/specs/apns.md: "priority 10 is immediate but budgeted by device condition, and an app
/// over budget is throttled"; `NSSupportsLiveActivitiesFrequentUpdates` raises it), so this is
/// pushlab's model, with its numbers in the open: a bucket of `capacity` immediate updates that
/// refills one every `refillSeconds`. Priority-5 updates never count.
public struct LiveActivityUpdateBudget: Sendable, Hashable {
    public var capacity: Int
    public var refillSeconds: Int
    private var available: Double
    private var lastRefill: Int?

    public init(capacity: Int, refillSeconds: Int) {
        self.capacity = capacity
        self.refillSeconds = refillSeconds
        available = Double(capacity)
    }

    /// pushlab's defaults: 10 immediate updates, one more every 6 minutes; with frequent updates
    /// 40, one more every 30 s.
    public static func standard(frequentUpdates: Bool) -> LiveActivityUpdateBudget {
        frequentUpdates ? LiveActivityUpdateBudget(capacity: 40, refillSeconds: 30)
                        : LiveActivityUpdateBudget(capacity: 10, refillSeconds: 360)
    }

    /// Takes one immediate update at `now` (UNIX seconds); false when the app is over budget.
    public mutating func admit(at now: Int) -> Bool {
        if let last = lastRefill, now > last {
            available = min(Double(capacity), available + Double(now - last) / Double(refillSeconds))
        }
        lastRefill = max(lastRefill ?? now, now)
        guard available >= 1 else { return false }
        available -= 1
        return true
    }

    /// Whole updates left at the last admission.
    public var remaining: Int { Int(available) }
}

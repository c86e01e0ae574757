import Foundation

/// The answer to an enqueue: the push the targets are (or already were) queued under.
public struct EnqueueReceipt: Sendable, Hashable {
    public var pushID: PushID
    public var targetCount: Int
    public var acceptedAt: Date
    /// True when an earlier request with the same idempotency key queued this push.
    public var isReplay: Bool

    public init(pushID: PushID, targetCount: Int, acceptedAt: Date, isReplay: Bool) {
        self.pushID = pushID
        self.targetCount = targetCount
        self.acceptedAt = acceptedAt
        self.isReplay = isReplay
    }
}

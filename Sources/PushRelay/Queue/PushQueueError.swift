/// Why a queue operation failed. Every case says what to do.
public enum PushQueueError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The same idempotency key came with a different request.
    case idempotencyConflict(key: String, pushID: PushID)
    /// Not enough room: `unfinished` targets wait, `capacity` is the limit, `incoming` were asked for.
    case full(unfinished: Int, incoming: Int, capacity: Int)
    /// The backing store failed (disk, connection); `detail` names it.
    case storage(String)
    case closed

    public var description: String {
        switch self {
        case .idempotencyConflict(let key, let pushID):
            return "Idempotency-Key '\(key)' was already used for push \(pushID) with a different request; use a new key for a new push"
        case .full(let unfinished, let incoming, let capacity):
            return "queue full: \(unfinished) targets unfinished + \(incoming) new > capacity \(capacity); retry later or raise queue.capacity"
        case .storage(let detail):
            return "queue storage failed: \(detail)"
        case .closed:
            return "queue is closed"
        }
    }
}

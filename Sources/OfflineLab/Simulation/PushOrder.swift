import PushGateway

/// One phone's pushes in the order it must handle them (the simulator's fleets): pushes are
/// listed by delivery id ahead of time, arrive from the gateway in any order, and are taken
/// strictly in the listed order; a push the gateway refused is skipped. Not thread-safe: the
/// fleet that owns it holds its lock.
struct PushOrder {
    private var expected: [String] = []
    /// `expected[next...]`, for lookups.
    private var waiting: Set<String> = []
    private var next = 0
    private var arrived: [String: AcceptedPush] = [:]
    private var skipped: Set<String> = []

    /// Listed pushes not yet taken or skipped.
    var pending: Bool { next < expected.count }

    mutating func expect(_ ids: [String]) {
        expected.append(contentsOf: ids)
        waiting.formUnion(ids)
    }

    /// Keeps `push` if it is listed; false otherwise (the fleet runs it at once).
    mutating func arrive(_ push: AcceptedPush) -> Bool {
        guard let id = push.deliveryID, waiting.contains(id) else { return false }
        arrived[id] = push
        return true
    }

    /// The gateway refused these: they will never arrive.
    mutating func skip(_ ids: Set<String>) { skipped.formUnion(ids.intersection(waiting)) }

    /// The next listed push if it has arrived (refused ones passed over), taken out of the order.
    mutating func takeNext() -> AcceptedPush? {
        while pending {
            let id = expected[next]
            if skipped.remove(id) != nil {
                advance(id)
                continue
            }
            guard let push = arrived.removeValue(forKey: id) else { return nil }
            advance(id)
            return push
        }
        return nil
    }

    private mutating func advance(_ id: String) {
        next += 1
        waiting.remove(id)
        if !pending {
            expected.removeAll()
            next = 0
        }
    }
}

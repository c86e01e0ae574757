/// A bounded set of push ids, oldest forgotten first.
struct AnnouncedPushes {
    private var ids: Set<PushID> = []
    private var order: [PushID] = []
    private var head = 0
    static let capacity = 10_000

    /// True when `id` was not there yet.
    mutating func insert(_ id: PushID) -> Bool {
        guard ids.insert(id).inserted else { return false }
        order.append(id)
        if order.count - head > Self.capacity {
            ids.remove(order[head])
            head += 1
            if head > Self.capacity { order.removeFirst(head); head = 0 }
        }
        return true
    }
}

public struct QueueDepth: Sendable, Hashable, Codable {
    /// Not yet final and not claimed (ready or waiting for a retry).
    public var waiting: Int
    /// Claimed by a worker, not yet final.
    public var claimed: Int
    /// Final.
    public var finished: Int
    public var unfinished: Int { waiting + claimed }
    public init(waiting: Int, claimed: Int, finished: Int) {
        self.waiting = waiting
        self.claimed = claimed
        self.finished = finished
    }
}

import PushRedis

/// One stream of the Redis queue with every key its scripts touch: the stream `P:work`, its
/// group `P:relay`, dead letters `P:dead`, and each push's keys (`RedisQueueScripts`). A push
/// lives in one lane, or — on a cluster, a push of more than one chunk — as one part in each
/// lane (`RedisPushQueue.parts(of:lanes:unfinished:)`).
///
/// On one Redis there is one lane and `P` is the queue's prefix (`pushlab`), as before Redis
/// Cluster support. On a Redis Cluster every lane's prefix is a hash tag, `{pushlab.N}`, so
/// all its keys hash to one slot and each script touches keys of that slot only (Redis Cluster
/// refuses a script that touches keys of several slots). The cluster's first node picks one tag
/// per master — the smallest N whose slot that master serves — and stores the list at
/// `{pushlab}:lanes`; every node reads that list, so the nodes agree even if the slots move
/// later (a lane then moves with its slot).
public struct RedisQueueLane: Sendable, Hashable {
    public var index: Int
    /// Key prefix of this lane (`pushlab` or `{pushlab.N}`).
    public var prefix: String
    public var stream: String { prefix + ":work" }
    public var group: String { prefix + ":relay" }
    public var deadLetters: String { prefix + ":dead" }

    public init(index: Int, prefix: String) {
        self.index = index
        self.prefix = prefix
    }

    /// `{PREFIX}`: the hash-tagged prefix of what a cluster's nodes share besides the lanes.
    public static func sharedPrefix(_ prefix: String) -> String { "{\(prefix)}" }

    /// One tag per master, in the masters' order: `PREFIX.N` for the smallest N not taken whose
    /// slot the master serves.
    static func tags(prefix: String, shards: [RedisShard]) -> [String] {
        var tags: [String] = []
        var taken = Set<String>()
        for shard in shards {
            var n = 0
            while n < 1_000_000 {
                let tag = "\(prefix).\(n)"
                let slot = RedisHashSlot.slot(of: tag)
                if !taken.contains(tag), shard.slots.contains(where: { $0.contains(slot) }) { break }
                n += 1
            }
            let tag = "\(prefix).\(n)"
            taken.insert(tag)
            tags.append(tag)
        }
        return tags
    }

    /// Lanes from the stored list of tags (`pushlab.0,pushlab.5,…`).
    static func parse(_ stored: String) -> [RedisQueueLane]? {
        let tags = stored.split(separator: ",").map(String.init)
        guard !tags.isEmpty, tags.allSatisfy({ !$0.isEmpty && !$0.contains("{") && !$0.contains("}") }) else { return nil }
        return tags.enumerated().map { RedisQueueLane(index: $0.offset, prefix: "{\($0.element)}") }
    }
}

import Foundation
import PushRedis

/// What the nodes of a relay cluster share besides the queue: API keys, provider tokens and
/// send budgets in the shared Redis, the nodes' heartbeats, and the state `GET /v1/cluster`
/// shows. Passed beside the `PushQueue` (nil for the embedded SQLite queue: one node, its own
/// keys, tokens and budgets), so nothing needs to know which queue type it runs on.
public protocol RelayClusterState: Sendable {
    /// This node's name: its consumer in the queue, its heartbeat.
    var node: String { get }
    /// Where the shared state is, without a password (`redis://…`, `redis-cluster://…`).
    var location: String { get }
    /// The client for the shared state (routed per key on a Redis Cluster).
    var sharedClient: RedisClient { get }
    /// The prefix of the shared keys (on a Redis Cluster one hash tag, so scripts over several
    /// of them touch one slot).
    var sharedPrefix: String { get }
    /// Writes this node's heartbeat.
    func heartbeat(node: String, startedAt: Date) async throws(PushQueueError)
    /// Nodes, depth, pending entries, dead letters (and shards on a Redis Cluster).
    func clusterStatus(deadLetterSample: Int) async throws(PushQueueError) -> RedisClusterStatus
}

extension RedisPushQueue: RelayClusterState {
    public var node: String { stream.consumer }
}

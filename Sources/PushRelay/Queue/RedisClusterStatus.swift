import Foundation
import PushRedis

/// What `GET /v1/cluster` shows.
public struct RedisClusterStatus: Sendable {
    public struct Node: Sendable {
        public var name: String
        public var lastHeartbeat: Date
        public var startedAt: Date
        public var secondsSinceHeartbeat: Double
    }
    public struct DeadLetter: Sendable {
        public var pushID: PushID
        public var index: Int
        public var app: String
        public var deliveries: Int
        public var deadBy: String
    }
    /// One stream of the queue (one on a single Redis; one per master on a Redis Cluster).
    public struct Lane: Sendable {
        public var stream: String
        public var slot: Int
        /// The master serving the lane's slot (Redis Cluster only).
        public var master: String?
        /// Entries on the stream (chunks not yet acknowledged).
        public var entries: Int
        /// Entries read by a node and not yet acknowledged.
        public var pending: Int
    }
    /// The endpoint without its password.
    public var redis: String
    public var depth: QueueDepth
    /// Targets waiting for a retry time (part of `depth.waiting`).
    public var retryWaiting: Int
    public var nodes: [Node]
    public var pendingByConsumer: [String: Int]
    public var deadLetterCount: Int
    public var recentDeadLetters: [DeadLetter]
    /// A Redis Cluster's masters and their slots (nil on one Redis).
    public var shards: [RedisShard]? = nil
    public var lanes: [Lane] = []
    /// MOVED/ASK answers this node followed (nil on one Redis).
    public var redirections: RedisClusterCounters? = nil
}

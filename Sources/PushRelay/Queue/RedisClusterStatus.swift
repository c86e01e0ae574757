import Foundation

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
    /// The endpoint without its password.
    public var redis: String
    public var depth: QueueDepth
    /// Targets waiting for a retry time (part of `depth.waiting`).
    public var retryWaiting: Int
    public var nodes: [Node]
    public var pendingByConsumer: [String: Int]
    public var deadLetterCount: Int
    public var recentDeadLetters: [DeadLetter]
}

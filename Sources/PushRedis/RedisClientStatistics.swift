import Dispatch
import Foundation

/// Counters a client keeps about its connection.
public struct RedisClientStatistics: Sendable, Hashable {
    public var connections = 0
    public var reconnections = 0
    public var connectionsLost = 0
    public var failedAttempts = 0
}

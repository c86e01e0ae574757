import Foundation
import PushCore
import PushHTTP

/// Running counts since start.
public struct CollectorCounters: Sendable, Equatable {
    public var requests = 0
    public var accepted = 0
    public var rejected = 0
    public var faulted = 0
    public var metrics = 0
    public var duplicates = 0

    public init(requests: Int = 0, accepted: Int = 0, rejected: Int = 0, faulted: Int = 0, metrics: Int = 0, duplicates: Int = 0) {
        self.requests = requests
        self.accepted = accepted
        self.rejected = rejected
        self.faulted = faulted
        self.metrics = metrics
        self.duplicates = duplicates
    }
}

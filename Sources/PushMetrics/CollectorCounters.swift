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
}

import Foundation
import PushCore

/// A `FirebaseMessagingService` in the merged manifest other than the SDK's.
public struct AndroidMessagingService: Codable, Sendable, Equatable {
    public var name: String
    /// Intent-filter priority; the SDK's own service declares -1.
    public var priority: Int
    /// True when its `onMessageReceived` calls `CustomerIOFirebaseMessagingService.onMessageReceived`.
    public var forwardsToCustomerIO: Bool
    public init(name: String, priority: Int = 0, forwardsToCustomerIO: Bool = false) {
        self.name = name
        self.priority = priority
        self.forwardsToCustomerIO = forwardsToCustomerIO
    }
}

import Foundation
import PushCore

/// One push the gateway accepted, as the report needs it.
public struct SentPush: Sendable, Equatable {
    public var deliveryID: String
    public var sentAt: Date
    public var token: String?
    public init(deliveryID: String, sentAt: Date, token: String?) {
        self.deliveryID = deliveryID
        self.sentAt = sentAt
        self.token = token
    }
}

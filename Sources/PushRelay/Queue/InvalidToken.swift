import Foundation

/// A token the provider called dead.
public struct InvalidToken: Sendable, Hashable {
    public var token: String
    public var kind: PushTarget.Kind
    public var reason: String
    public var pushID: PushID
    public var reportedAt: Date
    public init(token: String, kind: PushTarget.Kind, reason: String, pushID: PushID, reportedAt: Date) {
        self.token = token
        self.kind = kind
        self.reason = reason
        self.pushID = pushID
        self.reportedAt = reportedAt
    }
}

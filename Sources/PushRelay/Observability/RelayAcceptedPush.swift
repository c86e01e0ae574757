import Foundation

/// A push the relay answered `202` for.
public struct RelayAcceptedPush: Sendable {
    public var pushID: PushID
    public var app: String
    public var targets: [PushTarget]
    public var content: RelayPushContent
    public var acceptedAt: Date
}

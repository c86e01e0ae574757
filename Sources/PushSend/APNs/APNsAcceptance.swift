/// APNs accepted the push.
public struct APNsAcceptance: Sendable, Hashable {
    public var apnsID: String
    /// Sent by the sandbox only.
    public var uniqueID: String?
}

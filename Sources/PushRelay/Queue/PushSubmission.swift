import Foundation

/// What the API hands to `PushQueue.enqueue`.
public struct PushSubmission: Sendable {
    public var id: PushID
    public var app: String
    /// What to send, opaque to the queue (the relay stores an encoded `RelayPushContent`).
    public var content: [UInt8]
    public var targets: [PushTarget]
    /// The client's `Idempotency-Key`, unique per app.
    public var idempotencyKey: String?
    /// A digest of the request the key came with: the same key with another request is a conflict.
    public var requestFingerprint: String?
    public var acceptedAt: Date

    public init(id: PushID, app: String, content: [UInt8], targets: [PushTarget], idempotencyKey: String? = nil,
                requestFingerprint: String? = nil, acceptedAt: Date) {
        self.id = id
        self.app = app
        self.content = content
        self.targets = targets
        self.idempotencyKey = idempotencyKey
        self.requestFingerprint = requestFingerprint
        self.acceptedAt = acceptedAt
    }
}

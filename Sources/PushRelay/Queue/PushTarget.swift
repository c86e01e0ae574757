import PushCore

/// One place a push goes to.
public struct PushTarget: Sendable, Hashable, Codable {
    public enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
        /// An APNs device token (hex).
        case apnsToken = "apns"
        /// An FCM registration token or Firebase installation id.
        case fcmToken = "fcm"
        /// An FCM topic name (without `/topics/`).
        case fcmTopic = "topic"
        /// An FCM condition expression.
        case fcmCondition = "condition"
    }
    public var kind: Kind
    public var value: String
    /// APNs only: the host for this target; nil takes the app's configured environment.
    public var environment: APNsEnvironment?

    public init(kind: Kind, value: String, environment: APNsEnvironment? = nil) {
        self.kind = kind
        self.value = value
        self.environment = environment
    }

    public var isAPNs: Bool { kind == .apnsToken }
    /// The service this target is sent through, as the relay's metrics label it.
    public var platform: String { isAPNs ? "apns" : "fcm" }
}

/// Why the relay itself failed a target, when no provider answered with a reason of its own
/// (APNs' `BadDeviceToken`, FCM's `UNREGISTERED` … travel as the provider spelled them). The raw
/// values are what results, deliveries, webhooks, gorush's output and the
/// `pushlab_relay_failed_total` metric carry: never change one (docs/relay.md "Results").
public enum RelayFailure: String, Sendable, Hashable, CaseIterable {
    /// The push's app is no longer in relay.json (removed by a reload while it was queued).
    case unknownApp = "UnknownApp"
    /// The queued content cannot be read back.
    case badContent = "BadContent"
    /// An APNs target, but the app has no `apns` section for the target's environment.
    case noAPNsCredentials = "NoAPNsCredentials"
    /// An APNs target, but the push carries no APNs payload.
    case noAPNsPayload = "NoAPNsPayload"
    /// An FCM target, but the app has no `fcm` section or the push no FCM message.
    case noFCMCredentials = "NoFCMCredentials"
    /// The pre-flight check refused the push for a reason APNs has no name for.
    case preflightFailed = "PreflightFailed"
    /// The provider could not be reached (connection, TLS, timeout); retried.
    case transportError = "TransportError"
    /// No OAuth access token for FCM (the sender's own reason, the same string); retried.
    case accessTokenError = "AccessTokenError"
}

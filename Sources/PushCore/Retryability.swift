/// What a sender may do after a push was refused. One vocabulary for APNs reasons, FCM error
/// codes and transport failures, so a single retry policy serves both providers
/// (docs/specs/apns.md "Retry policy", docs/specs/fcm.md "Errors").
public enum Retryability: String, Sendable, Hashable, Codable, CaseIterable {
    /// The request itself is wrong (payload, header, token, credentials): sending it again
    /// gives the same answer. Fix it instead.
    case never
    /// A transient server or connection problem: retry with exponential backoff and jitter,
    /// honouring `Retry-After` when the server sent one.
    case withBackoff
    /// The server asked to slow down (429): retry after its `Retry-After`, else after the
    /// backoff delay. No new credential is minted for it.
    case afterDelay
    /// The credential expired: mint a fresh one (respecting the provider's refresh floor)
    /// and retry exactly once.
    case renewCredentialOnce

    /// True when sending the same request again can succeed.
    public var isRetryable: Bool { self != .never }
}

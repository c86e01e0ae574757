/// Supplies the OAuth2 access token of an FCM request. The real one wraps PushAuth's
/// `OAuthTokenSource`.
public protocol FCMAccessTokenProvider: Sendable {
    /// The bare access token (the client adds `Bearer `).
    /// Runs on the caller's executor: a cached value costs no executor hop per message.
    nonisolated(nonsending) func bearerToken() async throws -> String
    /// Called after FCM answered 401 to a request that carried `rejected`; true when a fresh
    /// token is ready.
    func renew(afterRejecting rejected: String) async -> Bool
}

/// PushAuth's OAuth2 token source is the real FCM credential: the access token cached and
/// refreshed before expiry, one exchange under concurrency.
extension OAuthTokenSource: FCMAccessTokenProvider {
    /// Nonisolated, so a valid cached token is returned on the caller's executor (the HTTP
    /// client's loop in a bulk send) without entering the actor and coming back (two jobs
    /// scheduled per message); only a refresh goes through the actor.
    public nonisolated(nonsending) func bearerToken() async throws -> String {
        if let current = currentAccessToken() { return current.value }
        return try await accessToken().value
    }

    public func renew(afterRejecting rejected: String) async -> Bool {
        guard let current = try? await accessToken() else { return false }
        if current.value == rejected {
            invalidate(current)
            return (try? await accessToken()) != nil
        }
        return true  // someone already replaced the rejected token
    }
}

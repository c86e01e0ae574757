/// Supplies the `authorization` value of an APNs request (`bearer <provider JWT>`). The real
/// one wraps PushAuth's `ProviderTokenCache`; tests can hand in a fixed token.
public protocol APNsCredential: Sendable {
    /// The `authorization` header value for the next request.
    /// Runs on the caller's executor: a cached value costs no executor hop per push.
    nonisolated(nonsending) func authorization() async throws -> String
    /// Called after APNs answered ExpiredProviderToken to a request that carried `rejected`.
    /// Returns true when a fresh token is ready (mint at most once per rejected token, and
    /// never inside the provider's 20-minute floor).
    func renew(afterRejecting rejected: String) async -> Bool
}

/// PushAuth's provider-token cache is the real APNs credential: one token reused, refreshed
/// at ~50 minutes, re-minted once after ExpiredProviderToken (never inside the 20-minute floor).
extension ProviderTokenCache: APNsCredential {
    public nonisolated(nonsending) func authorization() async throws -> String { try token().authorization }

    public func renew(afterRejecting rejected: String) async -> Bool {
        let jwt = rejected.split(separator: " ", maxSplits: 1).last.map(String.init) ?? rejected
        guard let renewal = try? invalidate(after: jwt) else { return false }
        if case .renewed = renewal { return true }
        return false
    }
}

import Foundation
import PushCore
import Synchronization

/// When to replace a provider token. APNs: refresh no more often than every 20 minutes
/// (else 429 TooManyProviderTokenUpdates) and before 60 minutes (else 403
/// ExpiredProviderToken); ~50 minutes is the common choice (docs/specs/apns.md, "Provider token").
public struct ProviderTokenPolicy: Sendable, Hashable {
    public var refreshAfter: TimeInterval
    public var minimumInterval: TimeInterval

    public init(refreshAfter: TimeInterval = 50 * 60, minimumInterval: TimeInterval = 20 * 60) {
        self.refreshAfter = refreshAfter
        self.minimumInterval = minimumInterval
    }

    public static let apple = ProviderTokenPolicy()
}

/// What `invalidate(after:)` did.
public enum ProviderTokenRenewal: Sendable, Hashable {
    /// A new token was minted (or another caller already replaced the rejected one): retry with it.
    case renewed(ProviderToken)
    /// The rejected token is younger than the 20-minute floor, so minting now would earn
    /// TooManyProviderTokenUpdates. The next token can be minted at `notBefore`.
    case tooSoon(notBefore: Date)
}

/// Reuses one provider token for every request and replaces it on the policy's schedule.
/// Minting happens under the lock, so any number of concurrent callers produce exactly one
/// mint per refresh (ES256 signing takes tens of microseconds; holding the lock is cheaper
/// than any coordination that would avoid it).
public final class ProviderTokenCache: Sendable {
    private struct State {
        var current: ProviderToken?
        /// Set when APNs rejected `current` as expired but the floor forbade replacing it yet.
        var rejected = false
        var mints = 0
    }

    public let key: APNsAuthKey
    public let policy: ProviderTokenPolicy
    private let time: any TimeSource
    private let state = Mutex(State())

    public init(key: APNsAuthKey, timeSource: any TimeSource = SystemTimeSource(), policy: ProviderTokenPolicy = .apple) {
        self.key = key
        self.time = timeSource
        self.policy = policy
    }

    /// The token to put on the next request, minting one when there is none, when it is
    /// `refreshAfter` old, or when it was rejected and the floor has passed.
    public func token() throws(JWTError) -> ProviderToken {
        let now = time.now
        return try state.withLock { (state: inout State) throws(JWTError) -> ProviderToken in
            if let current = state.current {
                let age = now.timeIntervalSince(current.issuedAt)
                let due = age >= policy.refreshAfter || (state.rejected && age >= policy.minimumInterval)
                if !due { return current }
            }
            return try mint(&state, at: now)
        }
    }

    /// Call after APNs answered 403 ExpiredProviderToken for `rejected` (its `jwt`). Many
    /// requests rejected with the same token re-mint once: the first caller mints, the rest
    /// get that new token. The 20-minute floor still holds (docs/specs/apns.md, "Retry policy").
    public func invalidate(after rejected: String) throws(JWTError) -> ProviderTokenRenewal {
        let now = time.now
        return try state.withLock { (state: inout State) throws(JWTError) -> ProviderTokenRenewal in
            guard let current = state.current, current.jwt == rejected else {
                // Already replaced by someone else (or never ours): use the current one.
                if let current = state.current { return .renewed(current) }
                return .renewed(try mint(&state, at: now))
            }
            let notBefore = current.issuedAt.addingTimeInterval(policy.minimumInterval)
            if now < notBefore {
                state.rejected = true
                return .tooSoon(notBefore: notBefore)
            }
            return .renewed(try mint(&state, at: now))
        }
    }

    /// How many tokens this cache has minted (tests and `--verbose` diagnostics).
    public var mintCount: Int { state.withLock { $0.mints } }

    private func mint(_ state: inout State, at now: Date) throws(JWTError) -> ProviderToken {
        let token = ProviderToken(jwt: try key.providerToken(issuedAt: now),
                                  issuedAt: Date(timeIntervalSince1970: now.timeIntervalSince1970.rounded(.down)))
        state.current = token
        state.rejected = false
        state.mints += 1
        return token
    }
}

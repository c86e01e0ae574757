import Foundation
import PushAuth
import PushCore
import PushHTTP


/// One FCM OAuth access token per service account for the whole cluster. A node asks Redis
/// for the account's current token (`P:oauth:CLIENT_EMAIL`); when there is none (or it is about
/// to expire), the node that takes the mint lock (`SET NX PX`) exchanges its assertion at the
/// token endpoint and stores the token until shortly before it expires; the others wait for it
/// and adopt it. So the cluster makes one token exchange per hour per account, not one per node.
///
/// A node keeps its copy until `refreshMargin` before expiry, so Redis is asked about once an
/// hour. When Redis cannot be reached, or the minting node does not store a token in time, the
/// node exchanges on its own (sending goes on; `localFallbacks` counts it).
///
/// So the cluster makes two exchanges (or more) only when: Redis cannot be reached (each node
/// that needs a token exchanges its own); an exchange outlasts `lockWait` (5 s: the lock expires
/// and the nodes waiting for it exchange their own); or a rejected token is renewed (`renew`: one
/// new exchange for the cluster).
///
/// The access token is a bearer credential kept in Redis: keep Redis on a private network with a
/// password. The service account's private key never leaves the node.
public actor SharedOAuthToken: FCMAccessTokenProvider {
    public nonisolated let redisKey: String
    private let lockKey: String
    private let source: OAuthTokenSource
    private let client: RedisClient
    private let time: any TimeSource
    private let refreshMargin: TimeInterval
    private let lockWait: Duration
    private var local: AccessToken?
    private var fallbacks = 0
    /// Tests only: runs after a read found no usable token, before this node tries the lock
    /// (where another node's whole mint can fall).
    private var beforeTakingLock: (@Sendable () async -> Void)?
    func setBeforeTakingLock(_ hook: (@Sendable () async -> Void)?) { beforeTakingLock = hook }

    public init(source: OAuthTokenSource, client: RedisClient, timeSource: any TimeSource = SystemTimeSource(),
                keyPrefix: String = "pushlab", lockWait: Duration = .seconds(5)) {
        self.source = source
        self.client = client
        self.time = timeSource
        self.refreshMargin = source.refreshMargin
        self.lockWait = lockWait
        redisKey = "\(keyPrefix):oauth:\(source.account.clientEmail)"
        lockKey = "\(keyPrefix):oauth-lock:\(source.account.clientEmail)"
    }

    /// Times this node exchanged a token on its own because Redis could not give it one.
    public var localFallbacks: Int { fallbacks }

    public func bearerToken() async throws -> String { try await current().value }

    /// Drops the rejected token here and, if it is still the one stored, in Redis; the next call
    /// gets a fresh one (minted once for the cluster).
    public func renew(afterRejecting rejected: String) async -> Bool {
        let bare = BearerAuthorization.token(in: rejected).map(String.init) ?? rejected
        if local?.value == bare { local = nil }
        await source.invalidate(afterRejecting: bare)
        _ = try? await client.eval(Self.deleteIfToken, keys: [redisKey], arguments: [" " + bare])
        return true
    }

    private func usable(_ token: AccessToken?) -> AccessToken? {
        guard let token, time.now < token.expiresAt.addingTimeInterval(-refreshMargin) else { return nil }
        return token
    }

    private func current() async throws -> AccessToken {
        if let token = usable(local) { return token }
        do {
            let deadline = ContinuousClock.now + lockWait
            while true {
                if let stored = usable(try await client.get(redisKey).flatMap(Self.decode)) {
                    local = stored
                    return stored
                }
                await beforeTakingLock?()
                if try await client.setIfAbsent(lockKey, value: "minting", expiresIn: lockWait) {
                    // Read again under the lock: a node may have minted, stored its token and
                    // released the lock between the read above and this lock (it stores before
                    // it releases), and exchanging again would make two tokens for the cluster.
                    if let stored = usable(try await client.get(redisKey).flatMap(Self.decode)) {
                        try await client.delete([lockKey])
                        local = stored
                        return stored
                    }
                    let token = try await source.accessToken()
                    let lifetime = token.expiresAt.addingTimeInterval(-refreshMargin).timeIntervalSince(time.now)
                    if lifetime > 0 { try await client.set(redisKey, value: Self.encode(token), expiresIn: .milliseconds(Int64(lifetime * 1000))) }
                    try await client.delete([lockKey])
                    local = token
                    return token
                }
                // Another node is minting: wait for its token.
                if ContinuousClock.now >= deadline { break }
                try await Task.sleep(for: .milliseconds(50))
            }
        } catch is RedisError {
            // Redis unreachable, or answering with an error (`-LOADING` right after a restart):
            // exchange on our own below.
        }
        fallbacks += 1
        let token = try await source.accessToken()
        local = token
        return token
    }

    // KEYS[1]; ARGV[1] " TOKEN": deletes the stored value only while it holds that token.
    static let deleteIfToken = RedisScript("""
        local v = redis.call('GET', KEYS[1])
        if v and string.sub(v, -string.len(ARGV[1])) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
        return 0
        """)

    /// `EXPIRES-AT-SECONDS TOKEN`.
    static func encode(_ token: AccessToken) -> String { "\(token.expiresAt.timeIntervalSince1970) \(token.value)" }

    static func decode(_ value: String) -> AccessToken? {
        let parts = value.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, let seconds = Double(parts[0]) else { return nil }
        return AccessToken(value: String(parts[1]), expiresAt: Date(timeIntervalSince1970: seconds))
    }
}

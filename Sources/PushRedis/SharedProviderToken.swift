import Foundation
import PushAuth
import PushCore


/// One APNs provider token per (team, key) for the whole cluster. Every node asks Redis for the
/// current token; when there is none, or it is due (`refreshAfter`, ~50 minutes), the first node
/// to ask installs the token it just signed and every other node adopts that one. So the token
/// changes once per ~50 minutes for the team, never once per node — APNs answers 429
/// TooManyProviderTokenUpdates to tokens refreshed more often than every 20 minutes
/// (docs/specs/apns.md, "Provider token").
///
/// The install is one Lua script (compare-and-set: keep a token younger than `refreshAfter`,
/// else store the new one with an expiry), atomic like `SET NX EX` but judged on the token's
/// age, so a clock that disagrees with Redis's never leaves a stale token in place.
///
/// A node uses its local copy until it is due, so Redis is asked about once per 50 minutes per
/// node. When Redis cannot be reached or answers the request with an error (`-LOADING` right
/// after a restart), the node keeps its token while APNs still takes it and
/// otherwise signs its own (sending goes on; only the one-token guarantee lapses, and says so in
/// `localFallbacks`).
public actor SharedProviderToken: APNsCredential {
    public nonisolated let key: APNsAuthKey
    public nonisolated let redisKey: String
    private let client: RedisClient
    private let time: any TimeSource
    private let policy: ProviderTokenPolicy
    private var local: (jwt: String, issuedAt: Date)?
    private var fallbacks = 0
    /// Set while `local` is a token this node made on its own because Redis could not be
    /// reached: from then on the node asks Redis again (at most every `retryShared` seconds)
    /// and adopts the cluster's token once it answers, instead of keeping its own for up to
    /// 55 minutes — every send with it would be another token for the team, which APNs answers
    /// with 429 TooManyProviderTokenUpdates (seen in RelayRedisOutageTests under load: one node
    /// whose first token fell in a Redis restart got 987 such answers).
    private var askAgainAt: Date?
    /// The request to Redis in flight, if any (`currentToken`).
    private var inFlight: Task<String, any Error>?
    public static let retryShared: TimeInterval = 2

    public init(key: APNsAuthKey, client: RedisClient, timeSource: any TimeSource = SystemTimeSource(),
                policy: ProviderTokenPolicy = .apple, keyPrefix: String = "pushlab") {
        self.key = key
        self.client = client
        self.time = timeSource
        self.policy = policy
        self.redisKey = "\(keyPrefix):apns-token:\(key.teamID):\(key.keyID)"
    }

    /// Times Redis could not be reached and this node used a token of its own.
    public var localFallbacks: Int { fallbacks }

    public func authorization() async throws -> String { "bearer \(try await currentToken())" }

    /// The cluster's token (its JWT). One request to Redis at a time per node: callers that
    /// find no usable local token while a request is in flight wait for its answer (a node's
    /// workers all need a token at its first sends; each asking on its own was one script call
    /// per worker, all on the one master that holds the key on a Redis Cluster).
    public func currentToken() async throws -> String {
        let now = time.now
        if let local, now.timeIntervalSince(local.issuedAt) < policy.refreshAfter, askAgainAt.map({ now < $0 }) ?? true {
            return local.jwt
        }
        if let inFlight { return try await inFlight.value }
        let request = Task { try await self.fetch(at: now) }
        inFlight = request
        return try await request.value
    }

    /// Asks Redis for the cluster's token, offering one of this node's (the body of `currentToken`).
    /// Ends the request in flight in the same turn of the actor as it stores the answer, so no
    /// caller joins a request that has already answered.
    private func fetch(at now: Date) async throws -> String {
        defer { inFlight = nil }
        // Back from a fallback with a token still young: offer that one (Redis keeps a stored
        // token younger than refresh-after, so the cluster's wins if there is one).
        let fresh = try askAgainAt != nil && local.map({ now.timeIntervalSince($0.issuedAt) < policy.refreshAfter }) == true
            ? local! : sign(at: now)
        do {
            let reply = try await client.eval(Self.install, keys: [redisKey],
                                              arguments: [Self.encode(fresh), String(Int64(policy.refreshAfter)),
                                                          String(Int64(now.timeIntervalSince1970))])
            guard let value = reply.string, let shared = Self.decode(value) else {
                throw RedisError.unexpectedReply(command: "EVALSHA provider token", reply: reply.shape)
            }
            local = shared
            askAgainAt = nil
            return shared.jwt
        } catch is RedisError {
            // Not only an unreachable Redis: one just restarted answers `-LOADING` while it reads
            // its data back, and such an answer, thrown, failed every send waiting for the token
            // for good (ProviderTokenError: 8 targets of RelayRedisOutageTests, 2026-12-07).
            fallbacks += 1
            askAgainAt = now.addingTimeInterval(Self.retryShared)
            // APNs takes a token up to 60 minutes old: keep ours while it lasts, else use the new one.
            if let local, now.timeIntervalSince(local.issuedAt) < 55 * 60 { return local.jwt }
            local = fresh
            return fresh.jwt
        }
    }

    /// After APNs answered 403 ExpiredProviderToken for `rejected`: true when a fresh token is
    /// ready. The shared token is replaced only when it is at least 20 minutes old; another
    /// node may have replaced it already, then this node adopts that one.
    public func renew(afterRejecting rejected: String) async -> Bool {
        let jwt = rejected.split(separator: " ", maxSplits: 1).last.map(String.init) ?? rejected
        let now = time.now
        if let local, local.jwt == jwt {
            guard now.timeIntervalSince(local.issuedAt) >= policy.minimumInterval else { return false }
            // Drop it in Redis only if it is still the one there (another node may have replaced it).
            _ = try? await client.eval(Self.deleteIfEqual, keys: [redisKey], arguments: [Self.encode(local)])
            self.local = nil
            // A request that was already in flight may have read the rejected token before the
            // delete: let it finish, and drop what it brought back if that is the rejected one.
            if let inFlight {
                _ = try? await inFlight.value
                if self.local?.jwt == jwt { self.local = nil }
            }
        }
        return (try? await currentToken()) != nil
    }

    private func sign(at now: Date) throws -> (jwt: String, issuedAt: Date) {
        let issuedAt = Date(timeIntervalSince1970: now.timeIntervalSince1970.rounded(.down))
        return (try key.providerToken(issuedAt: issuedAt), issuedAt)
    }

    static func encode(_ token: (jwt: String, issuedAt: Date)) -> String {
        "\(Int64(token.issuedAt.timeIntervalSince1970)) \(token.jwt)"
    }

    static func decode(_ value: String) -> (jwt: String, issuedAt: Date)? {
        let parts = value.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, let seconds = Int64(parts[0]) else { return nil }
        return (String(parts[1]), Date(timeIntervalSince1970: TimeInterval(seconds)))
    }

    // KEYS[1]; ARGV: the new "iat jwt", refresh-after seconds, now (s). Keeps a stored token
    // younger than refresh-after, else stores the new one to expire when it is due.
    static let install = RedisScript("""
        local current = redis.call('GET', KEYS[1])
        local refresh = tonumber(ARGV[2])
        local now = tonumber(ARGV[3])
        if current then
          local iat = tonumber(string.match(current, '^(%d+) '))
          if iat and now - iat < refresh then return current end
        end
        redis.call('SET', KEYS[1], ARGV[1], 'EX', refresh)
        return ARGV[1]
        """)

    static let deleteIfEqual = RedisScript("""
        if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
        return 0
        """)
}

import Foundation
import PushAuth
import PushRedis
import PushStore

/// The relay's API keys, stored as SHA-256 hashes: a stolen file (or Redis dump) does not give
/// working keys, and a key is shown exactly once, when created. One relay keeps them in
/// `DATA/keys.sqlite`; a cluster (`--queue redis://…`) keeps them in its Redis, so a key made on
/// one node works on every node and a revoke takes effect on all of them at the next request.
///
/// On Redis a node remembers a key it found live for `cacheLifetime` (`APIKeyCache`), so a
/// client sending many requests costs the shared master one lookup per key per second per node
/// instead of one per request; `revoke` returns only once every node's memory of the key has
/// run out (it waits `revokeWait` after removing it), so "a revoke takes effect at the next
/// request" still holds on every node, for any request sent after `keys revoke` returned.
public final class APIKeyStore: Sendable {
    /// Keys look like `plk_` + 40 base-62 characters (238 bits of randomness).
    public static let prefix = "plk_"
    /// How long a node on Redis trusts a lookup that found a key live, counted from before the
    /// lookup was sent. A constant, not a setting: the process that revokes (a node or the CLI)
    /// must wait at least this long, and cannot read the nodes' configuration.
    public static let cacheLifetime: Duration = .seconds(1)
    /// How long `revoke` waits after Redis removed the key: the lifetime and a margin for the
    /// nodes' and the revoker's clocks running at slightly different rates.
    public static let revokeWait: Duration = .milliseconds(1_100)
    private enum Backend {
        case sqlite(SQLiteDatabase)
        /// `P:apikeys` (hash: key hash → scope, live keys only) answers each request;
        /// `P:apikey:ID` (hash: hash, scope, label, created, revoked) and `P:apikey-ids` (set)
        /// are what `list` shows.
        case redis(RedisClient, prefix: String)
    }
    private let backend: Backend
    /// Keys found live, by hash (Redis only; SQLite is local and read each time).
    private let cache = APIKeyCache(lifetime: APIKeyStore.cacheLifetime)

    /// The keys of one relay, in a SQLite file.
    public init(path: String) throws {
        let database = try SQLiteDatabase(path: path)
        try database.execute("""
            CREATE TABLE IF NOT EXISTS api_keys (
                id TEXT PRIMARY KEY,
                hash TEXT NOT NULL UNIQUE,
                scope TEXT NOT NULL,
                label TEXT,
                created_at REAL NOT NULL,
                revoked_at REAL
            );
            """)
        backend = .sqlite(database)
    }

    /// The keys of a cluster, in its Redis (key names start with `prefix`, the queue's).
    public init(redis: RedisClient, prefix: String = "pushlab") {
        backend = .redis(redis, prefix: prefix)
    }

    /// Where the keys live, for messages (`keys.sqlite` path or the Redis address).
    public var location: String {
        switch backend {
        case .sqlite(let database): return database.path
        case .redis(let client, _): return client.location
        }
    }

    /// Makes a key for `scope`; returns it (the only time it is visible) with its info.
    public func create(scope: APIKeyScope, label: String?, now: Date = Date()) async throws -> (key: String, info: APIKeyInfo) {
        let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
        var generator = SystemRandomNumberGenerator()
        let key = Self.prefix + String((0..<40).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] })
        let info = APIKeyInfo(id: String(key.prefix(12)), scope: scope, label: label, createdAt: now, revokedAt: nil)
        switch backend {
        case .sqlite(let database):
            try database.run("INSERT INTO api_keys (id, hash, scope, label, created_at) VALUES (?, ?, ?, ?, ?)",
                             [.text(info.id), .text(Self.hash(key)), .text(scope.description), .text(label), .real(now.timeIntervalSince1970)])
        case .redis(let client, let P):
            let stored = try await client.eval(Self.createScript, keys: ["\(P):apikey:\(info.id)", "\(P):apikeys", "\(P):apikey-ids"],
                                               arguments: [info.id, Self.hash(key), scope.description, label ?? "", String(now.timeIntervalSince1970)])
            guard stored.integer == 1 else { throw APIKeyStoreError(message: "a key with id \(info.id) exists already; create another") }
        }
        return (key, info)
    }

    public func list() async throws -> [APIKeyInfo] {
        switch backend {
        case .sqlite(let database):
            return try database.query("SELECT id, scope, label, created_at, revoked_at FROM api_keys ORDER BY created_at").compactMap { row in
                guard let scope = APIKeyScope(stored: row.string(1) ?? "") else { return nil }
                return APIKeyInfo(id: row.string(0) ?? "", scope: scope, label: row.string(2),
                                  createdAt: Date(timeIntervalSince1970: row.double(3) ?? 0),
                                  revokedAt: row.double(4).map { Date(timeIntervalSince1970: $0) })
            }
        case .redis(let client, let P):
            let ids = try await client.execute(RedisCommand("SMEMBERS", "\(P):apikey-ids")).array?.compactMap(\.string) ?? []
            let replies = try await client.pipeline(ids.map { RedisCommand("HMGET", "\(P):apikey:\($0)", "scope", "label", "created", "revoked") })
            return zip(ids, replies).compactMap { id, reply -> APIKeyInfo? in
                let f = reply.array?.map(\.string) ?? []
                guard f.count == 4, let scope = APIKeyScope(stored: f[0] ?? "") else { return nil }
                return APIKeyInfo(id: id, scope: scope, label: (f[1] ?? "").isEmpty ? nil : f[1],
                                  createdAt: Date(timeIntervalSince1970: Double(f[2] ?? "") ?? 0),
                                  revokedAt: f[3].flatMap(Double.init).map { Date(timeIntervalSince1970: $0) })
            }.sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
        }
    }

    /// Revokes the key with this id; false when no live key has it. On Redis it returns once
    /// no node can still accept the key: Redis removes it at once, and a node that looked it up
    /// before trusts that answer for at most `cacheLifetime`, so this waits `revokeWait` after
    /// Redis answered (`waitForNodes: false` skips the wait, for tests that show why it is there).
    public func revoke(id: String, now: Date = Date(), waitForNodes: Bool = true) async throws -> Bool {
        switch backend {
        case .sqlite(let database):
            return try database.run("UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL",
                                    [.real(now.timeIntervalSince1970), .text(id)]) == 1
        case .redis(let client, let P):
            let reply = try await client.eval(Self.revokeScript, keys: ["\(P):apikey:\(id)", "\(P):apikeys"],
                                              arguments: [String(now.timeIntervalSince1970)])
            guard reply.integer == 1 else { return false }
            cache.forgetAll()
            if waitForNodes { try? await Task.sleep(for: Self.revokeWait, clock: .continuous) }
            return true
        }
    }

    /// The scope of a presented key, or nil when it is unknown or revoked. Looked up by hash:
    /// in SQLite on every request; in Redis unless this node found the key live less than
    /// `cacheLifetime` ago (counted from before that lookup was sent) and its Redis client has
    /// not lost a connection since — `revoke` waits that lifetime out, so a revoke still takes
    /// effect at every node's next request. Unknown and revoked keys are never remembered: each
    /// such request is looked up. Throws when the store cannot be read (Redis down, restarting
    /// or still loading its AOF; a SQLite error): then nobody knows whether the key is good, and
    /// the API answers 503 with Retry-After rather than telling a client its key is bad (401).
    public func scope(ofKey key: String) async throws(APIKeyLookupFailure) -> APIKeyScope? {
        guard key.hasPrefix(Self.prefix), key.utf8.count == Self.prefix.utf8.count + 40 else { return nil }
        switch backend {
        case .sqlite(let database):
            let rows: [SQLiteRow]
            do {
                rows = try database.query("SELECT scope FROM api_keys WHERE hash = ? AND revoked_at IS NULL", [.text(Self.hash(key))])
            } catch {
                throw APIKeyLookupFailure(store: .sqlite, location: database.path, reason: "\(error)")
            }
            guard let row = rows.first else { return nil }
            return APIKeyScope(stored: row.string(0) ?? "")
        case .redis(let client, let P):
            let hash = Self.hash(key)
            if let scope = cache.scope(ofHash: hash, troubles: client.connectionTroubles) { return scope }
            // One lookup per key at a time; the others wait for it, then read what it found.
            let owner = await cache.beginLookup(hash: hash)
            if owner {
                defer { cache.endLookup(hash: hash) }
                return try await lookUp(hash, client: client, prefix: P)
            }
            if let scope = cache.scope(ofHash: hash, troubles: client.connectionTroubles) { return scope }
            return try await lookUp(hash, client: client, prefix: P)
        }
    }

    /// One `HGET` of a key's hash; a live key is remembered (`cache`), any other answer forgets it.
    private func lookUp(_ hash: String, client: RedisClient, prefix P: String) async throws(APIKeyLookupFailure) -> APIKeyScope? {
        let troubles = client.connectionTroubles
        // The entry's lifetime starts before the command is sent: Redis runs it later, so a
        // revoke that Redis ran before it began at least `cacheLifetime` before the entry ends.
        let sent = ContinuousClock.now
        let reply: RedisReply
        do {
            reply = try await client.execute(RedisCommand("HGET", "\(P):apikeys", hash))
        } catch {
            throw APIKeyLookupFailure(store: .redis, location: client.location, reason: "\(error)")
        }
        guard let stored = reply.string, let scope = APIKeyScope(stored: stored) else {
            cache.forget(hash: hash)
            return nil
        }
        cache.remember(hash: hash, scope: scope, sent: sent, troubles: troubles)
        return scope
    }

    /// Keys this node remembers as live (Redis only; for tests).
    public var cachedKeys: Int { cache.count }

    static func hash(_ key: String) -> String { Digest.hex(Digest.sha256(key)) }

    // KEYS: the key's record, the live-hash index, the id set. ARGV: id, hash, scope, label, created.
    private static let createScript = RedisScript("""
        if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
        redis.call('HSET', KEYS[1], 'hash', ARGV[2], 'scope', ARGV[3], 'label', ARGV[4], 'created', ARGV[5])
        redis.call('HSET', KEYS[2], ARGV[2], ARGV[3])
        redis.call('SADD', KEYS[3], ARGV[1])
        return 1
        """)

    // KEYS: the key's record, the live-hash index. ARGV: revoked at.
    private static let revokeScript = RedisScript("""
        local f = redis.call('HMGET', KEYS[1], 'hash', 'revoked')
        if not f[1] or f[2] then return 0 end
        redis.call('HSET', KEYS[1], 'revoked', ARGV[1])
        redis.call('HDEL', KEYS[2], f[1])
        return 1
        """)
}

/// A key lookup that could not read the store: the key may well be good.
public struct APIKeyLookupFailure: Error, Sendable, CustomStringConvertible {
    public enum Store: Sendable { case sqlite, redis }
    public var store: Store
    /// The Redis address (never its password) or the keys.sqlite path.
    public var location: String
    public var reason: String
    public var description: String { "cannot read the API keys at \(location): \(reason)" }
}

/// A key the store could not make.
public struct APIKeyStoreError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}

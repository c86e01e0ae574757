import Foundation

/// A node's memory of the API keys Redis said were live (`APIKeyStore` on Redis), by SHA-256
/// hash — never the key itself. An entry is trusted until `lifetime` after its lookup was
/// sent, and only while the Redis client's connection-trouble count is the one read before that
/// lookup (a connection lost or refused in between drops every entry's trust: whatever happened
/// while Redis was unreachable, the node asks again). Unknown and revoked keys are not kept.
///
/// Why a lifetime and not pushed revokes alone: a message from Redis to the nodes (pub/sub)
/// arrives *after* the revoke's write, so a request reaching a node between the two would be
/// accepted, and a node whose subscription silently broke would never hear it. A revoke that
/// waits out a lifetime the nodes keep (`APIKeyStore.revokeWait`) closes both windows with no
/// extra connection; a push would only let the lifetime be longer, and at one lookup per key
/// per second per node the lookups left are already ~0 of the shared master's work.
final class APIKeyCache: @unchecked Sendable {
    private struct Entry {
        var scope: APIKeyScope
        var expires: ContinuousClock.Instant
        var troubles: Int
    }

    /// Most keys kept; more live keys than this (a deployment with thousands of keys in use on
    /// one node at once) are looked up per request beyond it, as without the cache.
    static let capacity = 4_096

    let lifetime: Duration
    private let lock = NSLock()
    // Guarded by `lock`.
    private var entries: [String: Entry] = [:]
    /// Hashes being looked up now, with the requests waiting for that lookup: when an entry
    /// runs out under load, one request asks Redis and the others wait for its answer (without
    /// this, every request arriving during that round trip sent its own `HGET`).
    private var lookups: [String: [CheckedContinuation<Bool, Never>]] = [:]

    init(lifetime: Duration) {
        self.lifetime = lifetime
    }

    /// The scope remembered for `hash`, if its entry is still trusted.
    func scope(ofHash hash: String, troubles: Int, now: ContinuousClock.Instant = .now) -> APIKeyScope? {
        lock.withLock {
            guard let entry = entries[hash] else { return nil }
            guard entry.troubles == troubles, now < entry.expires else {
                entries[hash] = nil
                return nil
            }
            return entry.scope
        }
    }

    /// Remembers a lookup sent at `sent` that found the key live. An older lookup's answer never
    /// replaces a newer one's.
    func remember(hash: String, scope: APIKeyScope, sent: ContinuousClock.Instant, troubles: Int) {
        let expires = sent + lifetime
        lock.withLock {
            if let entry = entries[hash], entry.expires >= expires, entry.troubles == troubles { return }
            if entries[hash] == nil, entries.count >= Self.capacity {
                let now = ContinuousClock.now
                entries = entries.filter { $0.value.expires > now && $0.value.troubles == troubles }
                if entries.count >= Self.capacity { return }
            }
            entries[hash] = Entry(scope: scope, expires: expires, troubles: troubles)
        }
    }

    /// True when the caller is to look `hash` up (and call `endLookup`); false once another
    /// request's lookup of it has ended (then read the cache again; if it has no trusted entry —
    /// the key was unknown, or the lookup failed — look it up yourself).
    func beginLookup(hash: String) async -> Bool {
        await withCheckedContinuation { continuation in
            let owner: Bool = lock.withLock {
                if lookups[hash] != nil {
                    lookups[hash]!.append(continuation)
                    return false
                }
                lookups[hash] = []
                return true
            }
            if owner { continuation.resume(returning: true) }
        }
    }

    /// Ends the lookup of `hash` begun by `beginLookup`: the requests waiting for it go on.
    func endLookup(hash: String) {
        let waiting = lock.withLock { lookups.removeValue(forKey: hash) ?? [] }
        for continuation in waiting { continuation.resume(returning: false) }
    }

    func forget(hash: String) {
        lock.withLock { entries[hash] = nil }
    }

    func forgetAll() {
        lock.withLock { entries.removeAll() }
    }

    var count: Int { lock.withLock { entries.count } }
}

/// One named budget in Redis (`key`), e.g. `pushlab:budget:fcm:PROJECT`.
public struct RedisRateBudget: Sendable {
    public let key: String
    public let budget: RateBudget
    private let client: RedisClient

    public init(client: RedisClient, key: String, budget: RateBudget) {
        self.client = client
        self.key = key
        self.budget = budget
    }

    /// Takes up to `count` tokens at once (a worker's batch). Never grants more than the bucket
    /// holds; whatever is granted is spent.
    public func take(_ count: Int) async throws(RedisError) -> RateGrant {
        precondition(count > 0, "take at least one token")
        let reply = try await client.eval(Self.script, keys: [key],
                                          arguments: [String(budget.burst), String(budget.refillPerMillisecond), String(count)])
        guard let parts = reply.array, parts.count == 2, let granted = parts[0].integer, let wait = parts[1].integer else {
            throw .unexpectedReply(command: "EVALSHA token bucket", reply: reply.shape)
        }
        // -1: a budget that never refills (burst == limit) — the rest comes after a window.
        return RateGrant(granted: Int(granted), retryAfter: wait < 0 ? budget.window : .milliseconds(wait))
    }

    /// The token bucket's script (to load ahead: `RedisClient.load`).
    public static var luaScript: RedisScript { script }

    // KEYS[1] the bucket; ARGV capacity, refill per ms, wanted. State: tokens (fractional) and
    // the time of the last update in ms. Returns {granted, ms until the shortfall refills}.
    static let script = RedisScript("""
        local capacity = tonumber(ARGV[1])
        local rate = tonumber(ARGV[2])
        local wanted = tonumber(ARGV[3])
        local clock = redis.call('TIME')
        local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
        local state = redis.call('HMGET', KEYS[1], 'tokens', 'at')
        local tokens = tonumber(state[1]) or capacity
        local at = tonumber(state[2]) or now
        if now > at then tokens = math.min(capacity, tokens + (now - at) * rate) end
        local granted = math.min(wanted, math.floor(tokens))
        tokens = tokens - granted
        local wait = 0
        if granted < wanted then
          if rate > 0 then wait = math.ceil((wanted - granted - tokens) / rate) else wait = -1 end
        end
        redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(math.max(now, at)))
        if rate > 0 then redis.call('PEXPIRE', KEYS[1], math.ceil(capacity / rate) + 1000) end
        return {granted, wait}
        """)
}

import PushRedis

/// The Lua scripts of `RedisPushQueue`, in one place. Each runs atomically in Redis, so a
/// push is queued whole or not at all, a claim hands a target to one consumer, and a final
/// result, its acknowledgement and its counters change together.
///
/// Keys (P = the prefix, default `pushlab`): `P:work` the stream (group `P:relay`), `P:dead`
/// dead letters, `P:leases` (zset: entry id → lease end), `P:delayed` (zset: target → retry
/// time), `P:unfinished` / `P:finished` counters, `P:idem:APP:KEY` → push id, and per push
/// `P:push:ID` (app, content, count, accepted, sent, failed, key, fp), `P:targets:ID`,
/// `P:results:ID` (the done markers: index → outcome JSON), `P:retry:ID`, `P:claimed:ID`;
/// per app the results stream `P:delivered:APP` and `P:invalid:APP`. A finished push's keys
/// (and its idempotency key) expire after the queue's `retention`.
///
/// An entry is deleted (`XDEL`) once acknowledged, so the stream holds only unfinished work.
///
/// Keys other than `KEYS` are derived from the prefix inside the scripts: the queue runs on one
/// Redis (or one shard), not across a Redis Cluster's slots.
enum RedisQueueScripts {
    /// Splits on the unit separator (0x1f) that joins a target's fields; keeps empty fields.
    private static let prelude = """
        local SEP = string.char(31)
        local function split(s)
          local out, from = {}, 1
          while true do
            local at = string.find(s, SEP, from, true)
            if not at then out[#out + 1] = string.sub(s, from); return out end
            out[#out + 1] = string.sub(s, from, at - 1)
            from = at + 1
          end
        end
        -- The first final result of (push, idx) is stored; later ones only acknowledge their entry.
        -- A push whose keys expired (its retention ended) takes no more results.
        -- Returns 0 (duplicate), 1 (recorded) or 2 (recorded, and the push is now finished; its
        -- keys then expire after `keep` ms).
        local function record(P, stream, group, entry, p, i, app, status, invalid, reason, outcome, at, kind, env, value, keep)
          local stored = 0
          if redis.call('EXISTS', P .. ':push:' .. p) == 1 then
            stored = redis.call('HSETNX', P .. ':results:' .. p, i, outcome)
          end
          if entry ~= '' then
            redis.call('XACK', stream, group, entry)
            redis.call('XDEL', stream, entry)
            redis.call('ZREM', P .. ':leases', entry)
          end
          if stored == 0 then return 0 end
          local held = redis.call('HGET', P .. ':claimed:' .. p, i)
          if held then
            local e = split(held)[2]
            if e and e ~= '' then
              redis.call('XACK', stream, group, e)
              redis.call('XDEL', stream, e)
              redis.call('ZREM', P .. ':leases', e)
            end
            redis.call('HDEL', P .. ':claimed:' .. p, i)
          end
          redis.call('HINCRBY', P .. ':push:' .. p, status, 1)
          redis.call('DECR', P .. ':unfinished')
          redis.call('INCR', P .. ':finished')
          redis.call('XADD', P .. ':delivered:' .. app, 'MAXLEN', '~', '1000000', '*',
                     'p', p, 'i', i, 'k', kind, 'e', env, 'v', value, 'o', outcome, 't', at)
          if invalid == '1' then
            redis.call('XADD', P .. ':invalid:' .. app, 'MAXLEN', '~', '1000000', '*',
                       'p', p, 'k', kind, 'v', value, 'r', reason, 't', at)
          end
          local counts = redis.call('HMGET', P .. ':push:' .. p, 'count', 'sent', 'failed', 'key')
          if (tonumber(counts[2]) or 0) + (tonumber(counts[3]) or 0) >= (tonumber(counts[1]) or 0) then
            for _, kind in ipairs({'push', 'targets', 'results', 'retry', 'claimed'}) do
              redis.call('PEXPIRE', P .. ':' .. kind .. ':' .. p, keep)
            end
            if counts[4] and counts[4] ~= '' then redis.call('PEXPIRE', P .. ':idem:' .. app .. ':' .. counts[4], keep) end
            return 2
          end
          return 1
        end

        """

    /// KEYS: idempotency key (or the prefix when none), push hash, targets hash, stream.
    /// ARGV: prefix, push id, app, content, count, accepted, idempotency key ('' none),
    /// fingerprint, capacity, then kind, environment, value per target.
    /// Returns {'ok'}, {'replay', id, fingerprint, count, accepted} or {'full', unfinished}.
    static let enqueue = RedisScript(prelude + """
        local P = ARGV[1]
        if ARGV[7] ~= '' then
          local existing = redis.call('GET', KEYS[1])
          if existing then
            local f = redis.call('HMGET', P .. ':push:' .. existing, 'fp', 'count', 'accepted')
            return {'replay', existing, f[1] or '', f[2] or '0', f[3] or '0'}
          end
        end
        local n = tonumber(ARGV[5])
        local unfinished = tonumber(redis.call('GET', P .. ':unfinished') or '0')
        if unfinished + n > tonumber(ARGV[9]) then return {'full', tostring(unfinished)} end
        redis.call('HSET', KEYS[2], 'app', ARGV[3], 'content', ARGV[4], 'count', ARGV[5], 'accepted', ARGV[6],
                   'key', ARGV[7], 'fp', ARGV[8], 'sent', 0, 'failed', 0)
        local fields = {}
        for t = 0, n - 1 do
          local base = 10 + t * 3
          local kind, env, value = ARGV[base], ARGV[base + 1], ARGV[base + 2]
          fields[#fields + 1] = tostring(t)
          fields[#fields + 1] = kind .. SEP .. env .. SEP .. value
          redis.call('XADD', KEYS[4], '*', 'p', ARGV[2], 'i', tostring(t), 'a', ARGV[3], 'k', kind, 'e', env, 'v', value)
          if #fields >= 1000 then redis.call('HSET', KEYS[3], unpack(fields)); fields = {} end
        end
        if #fields > 0 then redis.call('HSET', KEYS[3], unpack(fields)) end
        redis.call('INCRBY', P .. ':unfinished', n)
        if ARGV[7] ~= '' then redis.call('SET', KEYS[1], ARGV[2]) end
        return {'ok'}
        """)

    /// KEYS: stream. ARGV: prefix, group, consumer, now, lease end, limit, max deliveries,
    /// retention in ms.
    /// Due retries go back on the stream; entries whose lease ended before `now` are taken over
    /// (XCLAIM; past max deliveries they are dead-lettered with a final failure); then new
    /// entries are read (XREADGROUP). Entries whose target has a result are acknowledged and
    /// skipped. Returns {last stream id, id, p, i, a, k, e, v, attempts, deliveries, …}.
    static let claim = RedisScript(prelude + """
        local P, stream, group, consumer = ARGV[1], KEYS[1], ARGV[2], ARGV[3]
        local now, leaseEnd, limit, maxDeliveries, keep = ARGV[4], ARGV[5], tonumber(ARGV[6]), tonumber(ARGV[7]), ARGV[8]
        local leases, delayed = P .. ':leases', P .. ':delayed'
        for _, m in ipairs(redis.call('ZRANGEBYSCORE', delayed, '-inf', now, 'LIMIT', 0, 1000)) do
          local f = split(m)
          redis.call('XADD', stream, '*', 'p', f[1], 'i', f[2], 'a', f[3], 'k', f[4], 'e', f[5], 'v', f[6])
          redis.call('ZREM', delayed, m)
        end
        local picked = {}
        local expired = redis.call('ZRANGEBYSCORE', leases, '-inf', '(' .. now, 'LIMIT', 0, limit)
        if #expired > 0 then
          local found = {}
          for _, e in ipairs(redis.call('XCLAIM', stream, group, consumer, 0, unpack(expired))) do
            if e[2] then found[e[1]] = e end
          end
          for _, id in ipairs(expired) do
            local e = found[id]
            if not e then
              redis.call('ZREM', leases, id)
            else
              local pending = redis.call('XPENDING', stream, group, id, id, 1)
              local deliveries = (pending[1] and tonumber(pending[1][4])) or 1
              picked[#picked + 1] = {e, deliveries}
            end
          end
        end
        if #picked < limit then
          local fresh = redis.call('XREADGROUP', 'GROUP', group, consumer, 'COUNT', limit - #picked, 'STREAMS', stream, '>')
          if fresh and fresh[1] then
            for _, e in ipairs(fresh[1][2]) do picked[#picked + 1] = {e, 1} end
          end
        end
        local last = redis.call('XREVRANGE', stream, '+', '-', 'COUNT', 1)
        local out = {(last[1] and last[1][1]) or '0-0'}
        for _, item in ipairs(picked) do
          local id, fields, deliveries = item[1][1], item[1][2], item[2]
          local f = {}
          for j = 1, #fields, 2 do f[fields[j]] = fields[j + 1] end
          local p, i = f['p'] or '', f['i'] or ''
          local retry = redis.call('HGET', P .. ':retry:' .. p, i)
          local attempts = retry and split(retry)[1] or '0'
          if redis.call('HEXISTS', P .. ':results:' .. p, i) == 1 then
            redis.call('XACK', stream, group, id)
            redis.call('XDEL', stream, id)
            redis.call('ZREM', leases, id)
          elseif deliveries > maxDeliveries then
            redis.call('XADD', P .. ':dead', '*', 'p', p, 'i', i, 'a', f['a'] or '', 'k', f['k'] or '', 'v', f['v'] or '',
                       'source-id', id, 'deliveries', tostring(deliveries), 'dead-by', consumer, 't', now)
            local outcome = cjson.encode({status = 'failed', reason = 'DeadLetter', attempts = tonumber(attempts),
                                          tokenInvalid = false, finishedAt = tonumber(now)})
            record(P, stream, group, id, p, i, f['a'] or '', 'failed', '', '', outcome, now, f['k'] or '', f['e'] or '', f['v'] or '', keep)
          else
            redis.call('ZADD', leases, leaseEnd, id)
            redis.call('HSET', P .. ':claimed:' .. p, i, consumer .. SEP .. id)
            for _, v in ipairs({id, p, i, f['a'] or '', f['k'] or '', f['e'] or '', f['v'] or '', attempts, tostring(deliveries)}) do
              out[#out + 1] = v
            end
          end
        end
        return out
        """)

    /// KEYS: stream. ARGV: prefix, group, retention in ms, then per result: entry, push, idx,
    /// app, status, invalid ('1' or ''), reason, outcome JSON, finished at, kind, environment,
    /// value. Returns {recorded, duplicates, {0-based positions of the duplicates}, finished push ids…}.
    static let complete = RedisScript(prelude + """
        local P, group, keep = ARGV[1], ARGV[2], ARGV[3]
        local recorded, duplicates, positions, finished = 0, 0, {}, {}
        for b = 4, #ARGV, 12 do
          local r = record(P, KEYS[1], group, ARGV[b], ARGV[b + 1], ARGV[b + 2], ARGV[b + 3], ARGV[b + 4], ARGV[b + 5],
                           ARGV[b + 6], ARGV[b + 7], ARGV[b + 8], ARGV[b + 9], ARGV[b + 10], ARGV[b + 11], keep)
          if r == 0 then
            duplicates = duplicates + 1
            positions[#positions + 1] = (b - 4) / 12
          else
            recorded = recorded + 1
          end
          if r == 2 then finished[#finished + 1] = ARGV[b + 1] end
        end
        local out = {recorded, duplicates, positions}
        for _, p in ipairs(finished) do out[#out + 1] = p end
        return out
        """)

    /// KEYS: stream. ARGV: prefix, group, then per retry: entry, push, idx, app, kind, env,
    /// value, attempts, last error, not before. A target still leased and without a result is
    /// acknowledged on the stream and waits in `P:delayed` until its time. Returns how many.
    static let reschedule = RedisScript(prelude + """
        local P, group = ARGV[1], ARGV[2]
        local moved = 0
        for b = 3, #ARGV, 10 do
          local entry, p, i = ARGV[b], ARGV[b + 1], ARGV[b + 2]
          if redis.call('HEXISTS', P .. ':results:' .. p, i) == 0 and redis.call('ZSCORE', P .. ':leases', entry) then
            redis.call('XACK', KEYS[1], group, entry)
            redis.call('XDEL', KEYS[1], entry)
            redis.call('ZREM', P .. ':leases', entry)
            redis.call('HDEL', P .. ':claimed:' .. p, i)
            redis.call('HSET', P .. ':retry:' .. p, i, ARGV[b + 7] .. SEP .. ARGV[b + 8])
            local member = p .. SEP .. i .. SEP .. ARGV[b + 3] .. SEP .. ARGV[b + 4] .. SEP .. ARGV[b + 5] .. SEP .. ARGV[b + 6]
            redis.call('ZADD', P .. ':delayed', ARGV[b + 9], member)
            moved = moved + 1
          end
        end
        return moved
        """)

    /// KEYS: stream. ARGV: prefix, group, consumer, now. Ends the leases of every entry pending
    /// for `consumer` (a node restarted under the same name), so the next claim takes them.
    static let release = RedisScript("""
        local P = ARGV[1]
        local released = 0
        local start = '-'
        while true do
          local pending = redis.call('XPENDING', KEYS[1], ARGV[2], start, '+', 1000, ARGV[3])
          if #pending == 0 then break end
          for _, item in ipairs(pending) do
            redis.call('ZADD', P .. ':leases', 0, item[1])
            released = released + 1
          end
          if #pending < 1000 then break end
          start = '(' .. pending[#pending][1]
        end
        return released
        """)
}

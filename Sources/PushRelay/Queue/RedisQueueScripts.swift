import PushRedis

/// The Lua scripts of `RedisPushQueue`, in one place. Each runs atomically in Redis, so a
/// push is queued whole or not at all, a claim hands a chunk of targets to one consumer, and a
/// batch of final results, their acknowledgements and their counters change together.
///
/// The unit of the stream, of its lease and of its acknowledgement is a **chunk** of one push's
/// targets (at most the queue's `chunkSize`); the unit of a result, a retry and a done marker
/// stays the target. So Redis does per-chunk or per-batch work (a stream entry, a lease, a
/// script call) and per target only a hash field or a set member written in bulk.
///
/// Keys (P = the prefix, default `pushlab`): `P:work` the stream (group `P:relay`); an entry is
/// `p` (push), `a` (app) and either `f`/`n` (targets f … f+n−1; `d` their definitions joined by
/// RS, since 2026-12-06) or `l` (a comma list of targets: a retry, or the rest of a chunk split
/// by a take-over). `P:dead` dead letters,
/// `P:leases` (zset: entry id → lease end), `P:owner` (entry id → the claim's token,
/// consumer:deliveries), `P:out:ENTRY` (the claimed entry's targets not yet answered, a set) or,
/// for a chunk handed out whole at its first claim, `P:outb:ENTRY` (the same as a bitmap: bit j
/// for target f+j, highest bit of each byte first),
/// `P:cut` (entry id → how many of its targets it still covers after a split), `P:delayed`
/// (zset: push SEP target SEP app → retry time), `P:unfinished`, `P:finished`, `P:inflight`
/// (targets claimed) counters, `P:idem:APP:KEY` → push id, and per push `P:push:ID` (app,
/// content, count, accepted, sent, failed, key, fp, `chunk` when its definitions are stored per
/// chunk, and — in a part of a push spread over a cluster's lanes — `total` (the whole push's
/// count) and `first` (the part's first target)), `P:targets:ID` (`cF` → the definitions of the
/// chunk from target F on, joined by RS; or, queued before 2026-12-06 or with a value holding RS,
/// index → definition), `P:results:ID` (the done markers: index → outcome: the JSON array of `RedisPushQueue.encode`, or — written before 2026-12-06 or by these scripts — a JSON object), `P:retry:ID`
/// (index → attempts SEP last error SEP where the target waits: `delayed` or the entry it was put
/// back in), `P:claimed:ID` (claimed entry → consumer SEP its targets, comma-separated, or F+K
/// for a whole chunk's first K from F);
/// per app the results stream `P:delivered:APP` (one entry per batch and push: `p` the push,
/// `t` the newest finish time, `n` the count, `b` its results, RS-separated, each `i kind env
/// value outcome` joined by SEP — before 2026-12-06 `p i kind env value outcome at`, still
/// read) and `P:invalid:APP`. A
/// finished push's keys (and its idempotency key) expire after the queue's `retention`.
///
/// A target belongs to one entry at a time: its chunk, unless `P:retry:ID` names another (it
/// was rescheduled), so a taken-over chunk never hands out a target that waits for its retry
/// elsewhere. An entry is acknowledged and deleted (`XACK`, `XDEL`) once every target it
/// handed out has a final result or was rescheduled, so the stream holds only unfinished work.
///
/// Keys other than `KEYS` are derived from the prefix (`ARGV[1]`) inside the scripts: on a Redis
/// Cluster the prefix is a lane's hash tag (`{pushlab.N}`, `RedisQueueLane`), so every key a
/// script touches is in one slot. Never use a key name not built from the prefix or `KEYS`.
enum RedisQueueScripts {
    private static let prelude = """
        local SEP = string.char(31)
        local RS = string.char(30)
        local BIT = {128, 64, 32, 16, 8, 4, 2, 1}
        -- Splits on `sep` (default the unit separator); keeps empty fields.
        local function split(s, sep)
          sep = sep or SEP
          local out, from = {}, 1
          while true do
            local at = string.find(s, sep, from, true)
            if not at then out[#out + 1] = string.sub(s, from); return out end
            out[#out + 1] = string.sub(s, from, at - 1)
            from = at + 1
          end
        end
        -- The targets entry `e` handed out and not yet answered: the set `P:out:E`, or for a chunk
        -- handed out whole at its first claim the bitmap `P:outb:E` (bit j: target f+j, f the
        -- chunk's first target, which its receipt carries). Both go; the claimed count drops by
        -- what they held.
        local function dropOut(P, e)
          local left = redis.call('SCARD', P .. ':out:' .. e) + redis.call('BITCOUNT', P .. ':outb:' .. e)
          if left > 0 then
            redis.call('DEL', P .. ':out:' .. e, P .. ':outb:' .. e)
            redis.call('DECRBY', P .. ':inflight', left)
          end
        end
        -- A bitmap of k targets, all open (bit j of byte j/8, highest bit first).
        local function allOpen(k)
          local whole, rest = math.floor(k / 8), k % 8
          return string.rep(string.char(255), whole) .. (rest > 0 and string.char(256 - 2 ^ (8 - rest)) or '')
        end
        -- Clears the bits at `positions` (0-based) in entry e's bitmap; returns how many were set
        -- (an answer for a target not open there changes nothing), nil when e has no bitmap, and
        -- whether this cleared its last bit (the bitmap is then deleted).
        local function clearBits(P, e, positions)
          local key = P .. ':outb:' .. e
          local s = redis.call('GET', key)
          if not s then return nil end
          local b = {string.byte(s, 1, -1)}
          local removed = 0
          for _, j in ipairs(positions) do
            if j >= 0 and j < 8 * #b then
              local at, mask = (j - j % 8) / 8 + 1, BIT[j % 8 + 1]
              if b[at] % (2 * mask) >= mask then b[at] = b[at] - mask; removed = removed + 1 end
            end
          end
          if removed > 0 then
            local open = false
            for q = 1, #b do if b[q] ~= 0 then open = true; break end end
            if open then redis.call('SET', key, string.char(unpack(b))) else redis.call('DEL', key); return removed, true end
          end
          return removed, false
        end
        -- An entry done with: acknowledged, deleted, its lease, owner, cut, set and claim (on
        -- push p, when known) gone; `answeredAll` when its bitmap was just emptied (it has no
        -- set then: a set comes only with a take-over, which drops the bitmap).
        local function ack(P, stream, group, e, p, answeredAll)
          if p then redis.call('HDEL', P .. ':claimed:' .. p, e) end
          redis.call('XACK', stream, group, e)
          redis.call('XDEL', stream, e)
          redis.call('ZREM', P .. ':leases', e)
          redis.call('HDEL', P .. ':owner', e)
          redis.call('HDEL', P .. ':cut', e)
          if not answeredAll then dropOut(P, e) end
        end
        -- Acknowledges `e` when it is leased and every target it handed out is answered.
        local function settle(P, stream, group, e, p)
          if redis.call('EXISTS', P .. ':out:' .. e, P .. ':outb:' .. e) == 0 and redis.call('ZSCORE', P .. ':leases', e) then
            ack(P, stream, group, e, p)
          end
        end
        -- Targets idxs[first..last] that `e` answered (or gave back): out of its bitmap (given
        -- their bit positions, while it has one) or its set — a claim whose chunk was taken over
        -- answers for the new claim's set, as any claim does —; and out of the claimed count.
        -- Then `e` is acknowledged when nothing it handed out is open: at once when this emptied
        -- its bitmap (a bitmap lives only while its entry is leased), else when its set is gone
        -- and it is leased.
        local function answered(P, stream, group, e, p, idxs, first, last, positions)
          if last < first then return end
          local removed, emptied = nil, false
          if positions then removed, emptied = clearBits(P, e, positions) end
          local bitmap = removed ~= nil
          if not removed then
            removed = 0
            for s = first, last, 1000 do
              removed = removed + redis.call('SREM', P .. ':out:' .. e, unpack(idxs, s, math.min(last, s + 999)))
            end
          end
          if removed > 0 then redis.call('DECRBY', P .. ':inflight', removed) end
          if emptied then
            ack(P, stream, group, e, p, true)
          elseif not bitmap then
            settle(P, stream, group, e, p)
          end
        end
        -- The definitions of push p's targets `idxs` (index strings): from the field of the chunk
        -- holding each, `cF` (F its first target; the push's chunk size and, for a part of a
        -- push spread over lanes, its first target in `P:push:ID`), for a push queued that way;
        -- else from the per-target fields. A definition not found is false. Also returns, per
        -- target, the field that holds (or should hold) its definition.
        local function definitions(P, p, idxs)
          if #idxs == 0 then return {}, {} end
          local key = P .. ':targets:' .. p
          local head = redis.call('HMGET', P .. ':push:' .. p, 'chunk', 'first')
          local chunk = tonumber(head[1] or '')
          if not chunk then return redis.call('HMGET', key, unpack(idxs)), idxs end
          -- A part of a push spread over a cluster's lanes: its chunks start at its first target.
          local base = tonumber(head[2] or '') or 0
          local defs, fields, chunks = {}, {}, {}
          for k, i in ipairs(idxs) do
            local n = tonumber(i) or -1
            local from = n - (n - base) % chunk
            fields[k] = 'c' .. tostring(from)
            if chunks[from] == nil then
              local blob = redis.call('HGET', key, fields[k])
              chunks[from] = blob and split(blob, RS) or false
            end
            defs[k] = chunks[from] and chunks[from][n - from + 1] or false
          end
          return defs, fields
        end
        local function hsetMany(key, fields)
          for s = 1, #fields, 1000 do redis.call('HSET', key, unpack(fields, s, math.min(#fields, s + 999))) end
        end
        -- A push's counters, the batch's delivery-log entry and, when this finished the push, the
        -- expiry of its keys. `head`: the push's count, sent, failed and key read before (same
        -- script), else they are read after. Returns whether it finished the push.
        local function finishRecord(P, p, app, count, sent, failed, blob, at, keep, head)
          if sent > 0 then redis.call('HINCRBY', P .. ':push:' .. p, 'sent', sent) end
          if failed > 0 then redis.call('HINCRBY', P .. ':push:' .. p, 'failed', failed) end
          redis.call('DECRBY', P .. ':unfinished', count)
          redis.call('INCRBY', P .. ':finished', count)
          redis.call('XADD', P .. ':delivered:' .. app, 'MAXLEN', '~', '100000', '*', 'n', tostring(count), 't', at, 'p', p, 'b', blob)
          local counts, done = head, count
          if not counts then counts, done = redis.call('HMGET', P .. ':push:' .. p, 'count', 'sent', 'failed', 'key'), 0 end
          if (tonumber(counts[2]) or 0) + (tonumber(counts[3]) or 0) + done >= (tonumber(counts[1]) or 0) then
            for _, kind in ipairs({'push', 'targets', 'results', 'retry', 'claimed'}) do
              redis.call('PEXPIRE', P .. ':' .. kind .. ':' .. p, keep)
            end
            if counts[4] and counts[4] ~= '' then redis.call('PEXPIRE', P .. ':idem:' .. app .. ':' .. counts[4], keep) end
            return true
          end
          return false
        end
        -- The first final result per (push p, target) is stored, in bulk; later ones are duplicates.
        -- items: {i, '1' (sent) or '0' (failed), outcome JSON, delivery-log line, '' or (for a
        -- dead token) kind SEP value SEP reason SEP at}; blob: every line joined by RS, written
        -- as is when all are stored; at: the newest finish time. A push whose keys expired takes
        -- no more results. Returns a table of booleans (recorded) by position and whether this
        -- call finished the push (its keys then expire after `keep` ms).
        local function recordMany(P, p, app, items, blob, at, keep, head)
          local stored = {}
          if #items == 0 then return stored, false end
          if not head and redis.call('EXISTS', P .. ':push:' .. p) == 0 then return stored, false end
          local idxs = {}
          for k, it in ipairs(items) do idxs[k] = it[1] end
          local have = redis.call('HMGET', P .. ':results:' .. p, unpack(idxs))
          local fields, taken, lines = {}, {}, {}
          local sent, failed, count = 0, 0, 0
          for k, it in ipairs(items) do
            local i = it[1]
            if not have[k] and not taken[i] then
              taken[i] = true
              stored[k] = true
              count = count + 1
              fields[#fields + 1] = i
              fields[#fields + 1] = it[3]
              lines[#lines + 1] = it[4]
              if it[2] == '1' then sent = sent + 1 else failed = failed + 1 end
              if it[5] ~= '' then
                local v = split(it[5])
                redis.call('XADD', P .. ':invalid:' .. app, 'MAXLEN', '~', '1000000', '*',
                           'p', p, 'k', v[1], 'v', v[2], 'r', v[3], 't', v[4])
              end
            end
          end
          if count == 0 then return stored, false end
          if count < #items or not blob then blob = table.concat(lines, RS) end
          hsetMany(P .. ':results:' .. p, fields)
          return stored, finishRecord(P, p, app, count, sent, failed, blob, at, keep, head)
        end

        """

    /// KEYS: idempotency key (or the prefix when none), push hash, targets hash, stream.
    /// ARGV: prefix, push id, app, content, count, accepted, idempotency key ('' none),
    /// fingerprint, capacity, chunk size, then either '1', the first target's index and per
    /// chunk (of `chunk size` consecutive targets, the last one shorter) its targets'
    /// definitions (kind SEP environment SEP value) joined by RS, already joined by the caller —
    /// the definitions are stored per chunk: `P:targets:ID` field `cF` (F the chunk's first
    /// target) holds the chunk's argument as is, the push's `chunk` its chunk size, and each
    /// chunk's entry carries it too (`d`), so its first claim reads no hash; Lua does no work per
    /// target (an argument costs Redis a parse and a Lua string) — or, when a definition holds
    /// RS, '0' and per target its index and definition, indices consecutive, stored one field
    /// per target (index → definition), as before 2026-12-06. Then — for one part of a push
    /// spread over a cluster's lanes — the whole push's target count (`total` in `P:push:ID`;
    /// `count` is the part's; `first` its first target).
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
        local chunk = tonumber(ARGV[10])
        local unfinished = tonumber(redis.call('GET', P .. ':unfinished') or '0')
        if unfinished + n > tonumber(ARGV[9]) then return {'full', tostring(unfinished)} end
        redis.call('HSET', KEYS[2], 'app', ARGV[3], 'content', ARGV[4], 'count', ARGV[5], 'accepted', ARGV[6],
                   'key', ARGV[7], 'fp', ARGV[8], 'sent', 0, 'failed', 0)
        local withDefs = ARGV[11] == '1'
        local chunks = math.ceil(n / chunk)
        local last = withDefs and 12 + chunks or 11 + 2 * n
        -- A part of a push spread over a cluster's lanes: the push's target count after the
        -- targets, and its targets are consecutive from the first one's index.
        local first = n > 0 and tonumber(ARGV[12]) or 0
        if ARGV[last + 1] then redis.call('HSET', KEYS[2], 'total', ARGV[last + 1], 'first', tostring(first)) end
        if withDefs then
          redis.call('HSET', KEYS[2], 'chunk', tostring(chunk))
        else
          for from = 12, last, 1000 do redis.call('HSET', KEYS[3], unpack(ARGV, from, math.min(last, from + 999))) end
        end
        local fields = {}
        for from = 0, n - 1, chunk do
          local size = math.min(chunk, n - from)
          if withDefs then
            local joined = ARGV[13 + from / chunk]
            fields[#fields + 1] = 'c' .. tostring(first + from)
            fields[#fields + 1] = joined
            redis.call('XADD', KEYS[4], '*', 'p', ARGV[2], 'a', ARGV[3], 'f', tostring(first + from), 'n', tostring(size), 'd', joined)
          else
            redis.call('XADD', KEYS[4], '*', 'p', ARGV[2], 'a', ARGV[3], 'f', tostring(first + from), 'n', tostring(size))
          end
        end
        hsetMany(KEYS[3], fields)
        redis.call('INCRBY', P .. ':unfinished', n)
        if ARGV[7] ~= '' then redis.call('SET', KEYS[1], ARGV[2]) end
        return {'ok'}
        """)

    /// KEYS: stream. ARGV: prefix, group, consumer, now, lease end, limit (targets), max
    /// deliveries, retention in ms, chunk size.
    /// Due retries go back on the stream (one entry per push); entries whose lease ended before
    /// `now` are taken over (XCLAIM; past max deliveries their targets get a final DeadLetter
    /// failure); then new entries are read (XREADGROUP). Of each entry only its targets without a
    /// result that wait nowhere else are handed out; an entry with more than the limit left is
    /// split (the rest goes back on the stream as a new entry). Returns {the newest stream id ('' when it handed out targets), then per
    /// entry: receipt, push, app, deliveries, k, then either 'r', the first target f and the k
    /// definitions joined by RS (targets f … f+k−1, attempts 0: a chunk handed out whole at its
    /// first claim; its receipt ends in SEP f) or 'l' and k × (target, definition, attempts)}.
    static let claim = RedisScript(prelude + """
        local P, stream, group, consumer = ARGV[1], KEYS[1], ARGV[2], ARGV[3]
        local now, leaseEnd, limit, maxDeliveries, keep = ARGV[4], ARGV[5], tonumber(ARGV[6]), tonumber(ARGV[7]), ARGV[8]
        local chunk = tonumber(ARGV[9])
        local leases, delayed = P .. ':leases', P .. ':delayed'
        local due = redis.call('ZRANGEBYSCORE', delayed, '-inf', now, 'LIMIT', 0, 1000)
        if #due > 0 then
          local byPush, order = {}, {}
          for _, m in ipairs(due) do
            local f = split(m)
            local key = f[1] .. SEP .. f[3]
            if not byPush[key] then byPush[key] = {p = f[1], a = f[3], l = {}}; order[#order + 1] = key end
            local l = byPush[key].l
            l[#l + 1] = f[2]
          end
          for _, key in ipairs(order) do
            local g = byPush[key]
            for s = 1, #g.l, chunk do
              local part = {unpack(g.l, s, math.min(#g.l, s + chunk - 1))}
              local id = redis.call('XADD', stream, '*', 'p', g.p, 'a', g.a, 'l', table.concat(part, ','))
              local retry = redis.call('HMGET', P .. ':retry:' .. g.p, unpack(part))
              local fields = {}
              for k, i in ipairs(part) do
                local r = retry[k] and split(retry[k]) or {'0', ''}
                fields[#fields + 1] = i
                fields[#fields + 1] = (r[1] or '0') .. SEP .. (r[2] or '') .. SEP .. id
              end
              redis.call('HSET', P .. ':retry:' .. g.p, unpack(fields))
            end
          end
          for s = 1, #due, 1000 do redis.call('ZREM', delayed, unpack(due, s, math.min(#due, s + 999))) end
        end
        local out = {''}
        local handed = 0
        -- The targets entry `id` (fields f) covers; `cut` when a split shortened it.
        local function targetsOf(id, f, takeover)
          local list = {}
          if f['l'] then
            list = split(f['l'], ',')
          elseif f['i'] then
            -- An entry of one target, as pushlab wrote them before chunks.
            list = {f['i']}
          else
            local from, n = tonumber(f['f'] or '0'), tonumber(f['n'] or '0')
            for i = from, from + n - 1 do list[#list + 1] = tostring(i) end
          end
          if takeover then
            local cut = tonumber(redis.call('HGET', P .. ':cut', id) or '')
            if cut and cut < #list then list = {unpack(list, 1, cut)} end
          end
          return list
        end
        local function handOut(id, fields, deliveries, takeover)
          local f = {}
          for j = 1, #fields, 2 do f[fields[j]] = fields[j + 1] end
          local p, app = f['p'] or '', f['a'] or ''
          if not takeover and f['d'] and f['f'] and not f['l'] and not f['i'] then
            -- A chunk as queued with its definitions, read for the first time: handed out whole
            -- (or its first `room` targets) with no work per target — none can have a result or
            -- wait elsewhere yet; its open targets are a bitmap, its definitions the entry's.
            local from, n = tonumber(f['f']), tonumber(f['n'] or '0')
            local defs, k = f['d'], n
            local room = limit - handed
            if k > room then
              -- Split: this entry keeps its first `room` targets, the rest is a new chunk as queued.
              k = room
              local cut = 0
              for _ = 1, k do cut = string.find(defs, RS, cut + 1, true) end
              redis.call('HSET', P .. ':cut', id, tostring(k))
              redis.call('XADD', stream, '*', 'p', p, 'a', app, 'f', tostring(from + k), 'n', tostring(n - k), 'd', string.sub(defs, cut + 1))
              defs = string.sub(defs, 1, cut - 1)
            end
            local token = consumer .. ':' .. tostring(deliveries)
            redis.call('ZADD', leases, leaseEnd, id)
            redis.call('HSET', P .. ':owner', id, token)
            redis.call('SET', P .. ':outb:' .. id, allOpen(k))
            redis.call('INCRBY', P .. ':inflight', k)
            redis.call('HSET', P .. ':claimed:' .. p, id, consumer .. SEP .. tostring(from) .. '+' .. tostring(k))
            out[#out + 1] = id .. SEP .. token .. SEP .. tostring(from)
            out[#out + 1] = p
            out[#out + 1] = app
            out[#out + 1] = tostring(deliveries)
            out[#out + 1] = tostring(k)
            out[#out + 1] = 'r'
            out[#out + 1] = tostring(from)
            out[#out + 1] = defs
            handed = handed + k
            return
          end
          local list = targetsOf(id, f, takeover)
          if takeover then dropOut(P, id) end
          if #list == 0 then ack(P, stream, group, id, p); return end
          -- A chunk as queued, read for the first time, was never handed out: none of its
          -- targets can have a result or wait elsewhere yet.
          local pristine = not takeover and not f['l'] and not f['i']
          local results, retry = {}, {}
          if not pristine then
            results = redis.call('HMGET', P .. ':results:' .. p, unpack(list))
            if redis.call('EXISTS', P .. ':retry:' .. p) == 1 then retry = redis.call('HMGET', P .. ':retry:' .. p, unpack(list)) end
          end
          local open, attempts = {}, {}
          for k, i in ipairs(list) do
            if not results[k] then
              local r = retry[k] and split(retry[k]) or nil
              local owner = r and r[3] or id
              if owner == id then
                open[#open + 1] = i
                attempts[#open] = r and r[1] or '0'
              end
            end
          end
          if #open == 0 then ack(P, stream, group, id, p); return end
          if deliveries > maxDeliveries then
            local items = {}
            local defs = definitions(P, p, open)
            for k, i in ipairs(open) do
              local def = split(defs[k] or '')
              redis.call('XADD', P .. ':dead', '*', 'p', p, 'i', i, 'a', app, 'k', def[1] or '', 'v', def[3] or '',
                         'source-id', id, 'deliveries', tostring(deliveries), 'dead-by', consumer, 't', now)
              local outcome = cjson.encode({status = 'failed', reason = 'DeadLetter', attempts = tonumber(attempts[k]),
                                            tokenInvalid = false, finishedAt = tonumber(now)})
              items[#items + 1] = {i, '0', outcome,
                                   i .. SEP .. (def[1] or '') .. SEP .. (def[2] or '') .. SEP .. (def[3] or '') .. SEP .. outcome, ''}
            end
            recordMany(P, p, app, items, nil, now, keep)
            ack(P, stream, group, id, p)
            return
          end
          local room = limit - handed
          if #open > room then
            -- Split: this entry keeps the first `room` open targets, the rest is a new entry.
            local rest = {unpack(open, room + 1)}
            open = {unpack(open, 1, room)}
            local last = open[#open]
            local keepCount = 0
            for k, i in ipairs(list) do if i == last then keepCount = k; break end end
            redis.call('HSET', P .. ':cut', id, tostring(keepCount))
            local newID = redis.call('XADD', stream, '*', 'p', p, 'a', app, 'l', table.concat(rest, ','))
            -- Targets of the rest that waited for a retry in this entry now wait in the new one.
            if not pristine and redis.call('EXISTS', P .. ':retry:' .. p) == 1 then
              local moved = {}
              local retries = redis.call('HMGET', P .. ':retry:' .. p, unpack(rest))
              for k, i in ipairs(rest) do
                if retries[k] then
                  local parts = split(retries[k])
                  moved[#moved + 1] = i
                  moved[#moved + 1] = (parts[1] or '0') .. SEP .. (parts[2] or '') .. SEP .. newID
                end
              end
              if #moved > 0 then redis.call('HSET', P .. ':retry:' .. p, unpack(moved)) end
            end
          end
          -- A target whose definition is gone (a key edited or lost by hand, a bug) is not sent
          -- with an empty token: it gets a final failure, MissingDefinition, and a dead letter
          -- naming the missing field.
          local found, foundDefs, foundAttempts = {}, {}, {}
          local defs, fieldOf = definitions(P, p, open)
          local missing = {}
          for k, i in ipairs(open) do
            if defs[k] then
              found[#found + 1] = i
              foundDefs[#found] = defs[k]
              foundAttempts[#found] = attempts[k]
            else
              local outcome = cjson.encode({status = 'failed', reason = 'MissingDefinition', attempts = tonumber(attempts[k]),
                                            tokenInvalid = false, finishedAt = tonumber(now)})
              redis.call('XADD', P .. ':dead', '*', 'p', p, 'i', i, 'a', app, 'k', '', 'v', '', 'source-id', id,
                         'deliveries', tostring(deliveries), 'dead-by', consumer, 't', now, 'reason', 'MissingDefinition',
                         'missing', P .. ':targets:' .. p .. ' field ' .. tostring(fieldOf[k]))
              missing[#missing + 1] = {i, '0', outcome, i .. SEP .. SEP .. SEP .. SEP .. outcome, ''}
            end
          end
          if #missing > 0 then recordMany(P, p, app, missing, nil, now, keep) end
          open, defs, attempts = found, foundDefs, foundAttempts
          if #open == 0 then ack(P, stream, group, id, p); return end
          local token = consumer .. ':' .. tostring(deliveries)
          redis.call('ZADD', leases, leaseEnd, id)
          redis.call('HSET', P .. ':owner', id, token)
          for s = 1, #open, 1000 do redis.call('SADD', P .. ':out:' .. id, unpack(open, s, math.min(#open, s + 999))) end
          redis.call('INCRBY', P .. ':inflight', #open)
          redis.call('HSET', P .. ':claimed:' .. p, id, consumer .. SEP .. table.concat(open, ','))
          out[#out + 1] = id .. SEP .. token
          out[#out + 1] = p
          out[#out + 1] = app
          out[#out + 1] = tostring(deliveries)
          out[#out + 1] = tostring(#open)
          out[#out + 1] = 'l'
          for k, i in ipairs(open) do
            out[#out + 1] = i
            out[#out + 1] = defs[k]
            out[#out + 1] = attempts[k]
          end
          handed = handed + #open
        end
        -- Entries whose lease ended, one at a time while there is room (XCLAIM counts a delivery).
        local expired = redis.call('ZRANGEBYSCORE', leases, '-inf', '(' .. now, 'LIMIT', 0, limit)
        for _, id in ipairs(expired) do
          if handed >= limit then break end
          local taken = redis.call('XCLAIM', stream, group, consumer, 0, id)
          if not taken[1] or not taken[1][2] then
            ack(P, stream, group, id)
          else
            local pending = redis.call('XPENDING', stream, group, id, id, 1)
            local deliveries = (pending[1] and tonumber(pending[1][4])) or 1
            handOut(id, taken[1][2], deliveries, true)
          end
        end
        local rounds = 0
        while handed < limit and rounds < 8 do
          rounds = rounds + 1
          local want = math.max(1, math.ceil((limit - handed) / chunk))
          local fresh = redis.call('XREADGROUP', 'GROUP', group, consumer, 'COUNT', want, 'STREAMS', stream, '>')
          if not fresh or not fresh[1] or #fresh[1][2] == 0 then break end
          for _, e in ipairs(fresh[1][2]) do
            if handed < limit then
              handOut(e[1], e[2], 1, false)
            else
              -- Read but no room left: expired at once, so the next claim (any node) takes it.
              redis.call('ZADD', leases, '0', e[1])
            end
          end
        end
        -- The newest entry's id, for a node that found nothing and waits for a newer one (a
        -- claim that hands out targets does not need it: its entry carries a chunk's definitions).
        if handed == 0 then
          local last = redis.call('XREVRANGE', stream, '+', '-', 'COUNT', 1)
          out[1] = (last[1] and last[1][1]) or '0-0'
        end
        return out
        """)

    /// KEYS: stream. ARGV: prefix, group, retention in ms, the number of pushes G, then per push:
    /// push, app, n, statuses (n characters: '1' sent, '0' failed), its n delivery-log lines
    /// joined by RS, the newest finish time, '1' when its n targets are distinct, m (dead
    /// tokens), E (claim entries), then E (receipt, k, mask) — the entry's k answered targets are
    /// the next k of the push's n, in order; for an entry whose open targets are a bitmap (its
    /// receipt ends in SEP f) the mask has '1' at j for target f+j, else it is '' — then n
    /// (target, outcome JSON) pairs — the fields of
    /// `P:results:ID` as they are stored — then m (position 1…n, kind SEP value SEP reason SEP
    /// time). Each target is passed once: the done-marker lookup and each entry's answered
    /// targets reuse the pairs' strings (an argument costs Redis a parse and a Lua string).
    /// When none of a push's results is a duplicate (the usual case) they are stored straight
    /// from the arguments, with no work in Lua per result. Each entry whose targets are all
    /// answered is acknowledged. Returns {recorded, duplicates, {0-based ordinals (in argument
    /// order) of the duplicates}, then per push this call finished in the lane: its id, the
    /// lane's part `count` and the push's `total` ('' for a push in one part)}.
    static let complete = RedisScript(prelude + """
        local P, group, keep, pushes = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4])
        local stream = KEYS[1]
        local at = 5
        local ordinal, recorded, duplicates, ignored, finished = 0, 0, 0, {}, {}
        for _ = 1, pushes do
          local p, app, n, statuses, blob = ARGV[at], ARGV[at + 1], tonumber(ARGV[at + 2]), ARGV[at + 3], ARGV[at + 4]
          local newest, unique, m, entries = ARGV[at + 5], ARGV[at + 6], tonumber(ARGV[at + 7]), tonumber(ARGV[at + 8])
          local entryFrom = at + 9
          local pairFrom = entryFrom + 3 * entries
          local invFrom = pairFrom + 2 * n
          at = invFrom + 2 * m
          local idxs = {}
          for k = 1, n do idxs[k] = ARGV[pairFrom + 2 * k - 2] end
          local stored, done = {}, false
          -- The push's counts, read once (no count: its keys expired, every result is a duplicate).
          local head = n > 0 and redis.call('HMGET', P .. ':push:' .. p, 'count', 'sent', 'failed', 'key', 'total')
          if head and head[1] then
            local have = redis.call('HMGET', P .. ':results:' .. p, unpack(idxs))
            local clean = unique == '1'
            if clean then
              for k = 1, n do if have[k] then clean = false; break end end
            end
            if clean then
              for from = pairFrom, invFrom - 1, 1000 do
                redis.call('HSET', P .. ':results:' .. p, unpack(ARGV, from, math.min(invFrom - 1, from + 999)))
              end
              for k = 1, n do stored[k] = true end
              for j = 0, m - 1 do
                local v = split(ARGV[invFrom + 2 * j + 1])
                redis.call('XADD', P .. ':invalid:' .. app, 'MAXLEN', '~', '1000000', '*',
                           'p', p, 'k', v[1], 'v', v[2], 'r', v[3], 't', v[4])
              end
              local _, sent = string.gsub(statuses, '1', '')
              done = finishRecord(P, p, app, n, sent, n - sent, blob, newest, keep, head)
            else
              local lines = split(blob, RS)
              local inv = {}
              for j = 0, m - 1 do inv[tonumber(ARGV[invFrom + 2 * j])] = ARGV[invFrom + 2 * j + 1] end
              local items = {}
              for k = 1, n do
                items[k] = {idxs[k], string.sub(statuses, k, k), ARGV[pairFrom + 2 * k - 1], lines[k] or '', inv[k] or ''}
              end
              stored, done = recordMany(P, p, app, items, nil, newest, keep, head)
            end
          end
          for k = 1, n do
            if stored[k] then recorded = recorded + 1 else duplicates = duplicates + 1; ignored[#ignored + 1] = ordinal end
            ordinal = ordinal + 1
          end
          if done then finished[#finished + 1] = {p, head[1], head[5] or ''} end
          local first = 1
          for j = 0, entries - 1 do
            local e = split(ARGV[entryFrom + 3 * j])[1]
            local k, mask = tonumber(ARGV[entryFrom + 3 * j + 1]), ARGV[entryFrom + 3 * j + 2]
            if e ~= '' and k > 0 then
              local positions = nil
              if mask ~= '' then
                positions = {}
                local m = {string.byte(mask, 1, -1)}
                for q = 1, #m do if m[q] == 49 then positions[#positions + 1] = q - 1 end end
              end
              answered(P, stream, group, e, p, idxs, first, first + k - 1, positions)
            end
            first = first + k
          end
        end
        local out = {recorded, duplicates, ignored}
        for _, f in ipairs(finished) do out[#out + 1] = f[1]; out[#out + 1] = f[2]; out[#out + 1] = f[3] end
        return out
        """)

    /// KEYS: stream. ARGV: prefix, group, then per retry: receipt, push, idx, app, attempts,
    /// last error, not before. A target without a result whose entry this claim still owns
    /// leaves its entry and waits in `P:delayed` until its time. Returns how many.
    static let reschedule = RedisScript(prelude + """
        local P, group = ARGV[1], ARGV[2]
        local moved = 0
        local touched, order = {}, {}
        for b = 3, #ARGV, 7 do
          local r = split(ARGV[b])
          local entry, token = r[1], r[2] or ''
          local p, i = ARGV[b + 1], ARGV[b + 2]
          if redis.call('HEXISTS', P .. ':results:' .. p, i) == 0 and redis.call('HGET', P .. ':owner', entry) == token then
            if not touched[entry] then touched[entry] = {p = p, from = tonumber(r[3] or ''), bits = {}}; order[#order + 1] = entry end
            local l = touched[entry]
            l[#l + 1] = i
            if l.from then l.bits[#l.bits + 1] = tonumber(i) - l.from end
            redis.call('HSET', P .. ':retry:' .. p, i, ARGV[b + 4] .. SEP .. ARGV[b + 5] .. SEP .. 'delayed')
            redis.call('ZADD', P .. ':delayed', ARGV[b + 6], p .. SEP .. i .. SEP .. ARGV[b + 3])
            moved = moved + 1
          end
        end
        for _, e in ipairs(order) do
          answered(P, KEYS[1], group, e, touched[e].p, touched[e], 1, #touched[e], touched[e].from and touched[e].bits)
        end
        return moved
        """)

    /// ARGV: prefix, lease end, then receipts. Extends the leases of the entries these claims
    /// still own (a target waiting for its app's send budget outlasts no lease). Returns how many.
    static let renew = RedisScript(prelude + """
        local P, leaseEnd = ARGV[1], ARGV[2]
        local renewed = 0
        for b = 3, #ARGV do
          local r = split(ARGV[b])
          if r[2] and redis.call('HGET', P .. ':owner', r[1]) == r[2] and redis.call('ZSCORE', P .. ':leases', r[1]) then
            redis.call('ZADD', P .. ':leases', leaseEnd, r[1])
            renewed = renewed + 1
          end
        end
        return renewed
        """)

    /// KEYS: stream. ARGV: prefix, group, consumer. Ends the leases of every entry pending for
    /// `consumer` (a node restarted under the same name), so the next claim takes them.
    /// Returns how many targets they hold.
    static let release = RedisScript("""
        local P = ARGV[1]
        local released = 0
        local start = '-'
        while true do
          local pending = redis.call('XPENDING', KEYS[1], ARGV[2], start, '+', 1000, ARGV[3])
          if #pending == 0 then break end
          for _, item in ipairs(pending) do
            redis.call('ZADD', P .. ':leases', 0, item[1])
            released = released + redis.call('SCARD', P .. ':out:' .. item[1]) + redis.call('BITCOUNT', P .. ':outb:' .. item[1])
          end
          if #pending < 1000 then break end
          start = '(' .. pending[#pending][1]
        end
        return released
        """)
}

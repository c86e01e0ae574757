/// Stream commands with typed replies (Redis 7: XAUTOCLAIM returns deleted ids, XINFO lag).
extension RedisClient {
    /// `XADD stream [MAXLEN ~ n] * field value …` → the new entry's id.
    @discardableResult
    public func xadd(_ stream: String, fields: [(String, String)], approximateMaxLength: Int? = nil) async throws(RedisError) -> String {
        try await execute(Self.xaddCommand(stream, fields: fields, approximateMaxLength: approximateMaxLength)).string
            .orThrow(RedisError.unexpectedReply(command: "XADD", reply: "no id"))
    }

    /// The `XADD` command, for pipelines (many chunks in one round trip).
    public static func xaddCommand(_ stream: String, fields: [(String, String)], approximateMaxLength: Int? = nil) -> RedisCommand {
        var arguments = [stream]
        if let approximateMaxLength { arguments += ["MAXLEN", "~", String(approximateMaxLength)] }
        arguments.append("*")
        for (field, value) in fields { arguments += [field, value] }
        return RedisCommand("XADD", arguments)
    }

    /// `XGROUP CREATE stream group start MKSTREAM`; true when created, false when it existed.
    /// `start` `0` reads entries written before the group existed (gorush's `$` loses them).
    @discardableResult
    public func createGroup(_ stream: String, group: String, start: String = "0") async throws(RedisError) -> Bool {
        do {
            try await execute(RedisCommand("XGROUP", "CREATE", stream, group, start, "MKSTREAM"))
            return true
        } catch .server(let message) where message.hasPrefix("BUSYGROUP") {
            return false
        }
    }

    /// `XREADGROUP GROUP group consumer COUNT n [BLOCK ms] STREAMS stream id`. `id` `>` reads new
    /// entries; `0` re-reads this consumer's own pending ones. Empty when the block timed out.
    public func xreadgroup(_ stream: String, group: String, consumer: String, count: Int,
                           block: Duration? = nil, id: String = ">") async throws(RedisError) -> [RedisStreamEntry] {
        var arguments = ["GROUP", group, consumer, "COUNT", String(count)]
        if let block { arguments += ["BLOCK", String(block.milliseconds)] }
        arguments += ["STREAMS", stream, id]
        let reply = try await execute(RedisCommand("XREADGROUP", arguments), readTimeout: block)
        if reply.isNull { return [] }
        guard let streams = reply.array else { throw .unexpectedReply(command: "XREADGROUP", reply: reply.shape) }
        var entries: [RedisStreamEntry] = []
        for streamReply in streams {
            guard let parts = streamReply.array, parts.count == 2, let list = parts[1].array else {
                throw .unexpectedReply(command: "XREADGROUP", reply: streamReply.shape)
            }
            for entry in list {
                guard let parsed = RedisStreamEntry(reply: entry) else { throw .unexpectedReply(command: "XREADGROUP", reply: entry.shape) }
                entries.append(parsed)
            }
        }
        return entries
    }

    /// `XACK stream group id …` → how many were pending and are now acknowledged.
    @discardableResult
    public func xack(_ stream: String, group: String, ids: [String]) async throws(RedisError) -> Int {
        guard !ids.isEmpty else { return 0 }
        return try await execute(Self.xackCommand(stream, group: group, ids: ids)).intValue(command: "XACK")
    }

    public static func xackCommand(_ stream: String, group: String, ids: [String]) -> RedisCommand {
        RedisCommand("XACK", [stream, group] + ids)
    }

    /// `XAUTOCLAIM stream group consumer min-idle start COUNT n`: takes over entries pending
    /// for longer than `minIdle` (their consumer died or stalled).
    public func xautoclaim(_ stream: String, group: String, consumer: String, minIdle: Duration,
                           start: String = "0-0", count: Int = 100) async throws(RedisError) -> RedisAutoClaim {
        let reply = try await execute(RedisCommand("XAUTOCLAIM", stream, group, consumer, String(minIdle.milliseconds),
                                                   start, "COUNT", String(count)))
        guard let parts = reply.array, parts.count >= 2, let next = parts[0].string, let list = parts[1].array else {
            throw .unexpectedReply(command: "XAUTOCLAIM", reply: reply.shape)
        }
        var entries: [RedisStreamEntry] = []
        var deleted: [String] = []
        for entry in list {
            // Redis 6.2 put nil entries in the list for deleted ids; Redis 7 lists them apart.
            if let parsed = RedisStreamEntry(reply: entry) { entries.append(parsed) }
        }
        if parts.count >= 3, let ids = parts[2].array { deleted = ids.compactMap(\.string) }
        return RedisAutoClaim(nextStart: next, entries: entries, deletedIDs: deleted)
    }

    /// `XPENDING stream group`: the summary.
    public func xpendingSummary(_ stream: String, group: String) async throws(RedisError) -> RedisPendingSummary {
        let reply = try await execute(RedisCommand("XPENDING", stream, group))
        guard let parts = reply.array, parts.count == 4, let count = parts[0].integer else {
            throw .unexpectedReply(command: "XPENDING", reply: reply.shape)
        }
        var perConsumer: [String: Int] = [:]
        for consumer in parts[3].array ?? [] {
            if let pair = consumer.array, pair.count == 2, let name = pair[0].string, let n = pair[1].integer { perConsumer[name] = Int(n) }
        }
        return RedisPendingSummary(count: Int(count), smallestID: parts[1].string, largestID: parts[2].string, perConsumer: perConsumer)
    }

    /// `XPENDING stream group [IDLE ms] start end count [consumer]`: pending entries in detail.
    public func xpending(_ stream: String, group: String, minIdle: Duration? = nil, start: String = "-", end: String = "+",
                         count: Int = 100, consumer: String? = nil) async throws(RedisError) -> [RedisPendingEntry] {
        var arguments = [stream, group]
        if let minIdle { arguments += ["IDLE", String(minIdle.milliseconds)] }
        arguments += [start, end, String(count)]
        if let consumer { arguments.append(consumer) }
        let reply = try await execute(RedisCommand("XPENDING", arguments))
        guard let list = reply.array else { throw .unexpectedReply(command: "XPENDING", reply: reply.shape) }
        return try list.map { (item: RedisReply) throws(RedisError) -> RedisPendingEntry in
            guard let parts = item.array, parts.count == 4, let id = parts[0].string, let owner = parts[1].string,
                  let idle = parts[2].integer, let deliveries = parts[3].integer else {
                throw .unexpectedReply(command: "XPENDING", reply: item.shape)
            }
            return RedisPendingEntry(id: id, consumer: owner, idle: .milliseconds(idle), deliveries: Int(deliveries))
        }
    }

    /// `XRANGE stream start end [COUNT n]`.
    public func xrange(_ stream: String, start: String = "-", end: String = "+", count: Int? = nil) async throws(RedisError) -> [RedisStreamEntry] {
        var arguments = [stream, start, end]
        if let count { arguments += ["COUNT", String(count)] }
        let reply = try await execute(RedisCommand("XRANGE", arguments))
        guard let list = reply.array else { throw .unexpectedReply(command: "XRANGE", reply: reply.shape) }
        return try list.map { (entry: RedisReply) throws(RedisError) -> RedisStreamEntry in
            guard let parsed = RedisStreamEntry(reply: entry) else { throw .unexpectedReply(command: "XRANGE", reply: entry.shape) }
            return parsed
        }
    }

    /// `XINFO GROUPS stream`.
    public func xinfoGroups(_ stream: String) async throws(RedisError) -> [RedisGroupInfo] {
        let reply = try await execute(RedisCommand("XINFO", "GROUPS", stream))
        guard let list = reply.array else { throw .unexpectedReply(command: "XINFO", reply: reply.shape) }
        return list.compactMap { item in
            guard let flat = item.array else { return nil }
            var map: [String: RedisReply] = [:]
            var index = 0
            while index + 1 < flat.count {
                if let key = flat[index].string { map[key] = flat[index + 1] }
                index += 2
            }
            guard let name = map["name"]?.string else { return nil }
            return RedisGroupInfo(name: name, consumers: Int(map["consumers"]?.integer ?? 0),
                                  pending: Int(map["pending"]?.integer ?? 0),
                                  lastDeliveredID: map["last-delivered-id"]?.string ?? "0-0",
                                  lag: map["lag"]?.integer.map(Int.init))
        }
    }
}

extension RedisReply {
    func intValue(command: String) throws(RedisError) -> Int {
        guard let value = integer else { throw .unexpectedReply(command: command, reply: shape) }
        return Int(value)
    }
}

extension Optional {
    func orThrow<E: Error>(_ error: E) throws(E) -> Wrapped {
        guard let self else { throw error }
        return self
    }
}

/// String-key commands with typed replies.
extension RedisClient {
    /// `GET key`; nil when absent.
    public func get(_ key: String) async throws(RedisError) -> String? {
        try await execute(RedisCommand("GET", key)).string
    }

    /// `SET key value NX [EX s | PX ms]`: true when this call created the key (the caller
    /// "won"), false when it existed. The expiry is rounded to milliseconds.
    public func setIfAbsent(_ key: String, value: String, expiresIn: Duration?) async throws(RedisError) -> Bool {
        var arguments = [key, value, "NX"]
        if let expiresIn { arguments += ["PX", String(max(1, expiresIn.milliseconds))] }
        return try await !execute(RedisCommand("SET", arguments)).isNull
    }

    /// `SET key value [PX ms]`.
    public func set(_ key: String, value: String, expiresIn: Duration? = nil) async throws(RedisError) {
        var arguments = [key, value]
        if let expiresIn { arguments += ["PX", String(max(1, expiresIn.milliseconds))] }
        try await execute(RedisCommand("SET", arguments))
    }

    /// `DEL key …` → how many existed.
    @discardableResult
    public func delete(_ keys: [String]) async throws(RedisError) -> Int {
        guard !keys.isEmpty else { return 0 }
        return try await execute(RedisCommand("DEL", keys)).intValue(command: "DEL")
    }

    /// `PING` → true on `PONG`.
    public func ping() async throws(RedisError) -> Bool {
        try await execute(RedisCommand("PING")).string == "PONG"
    }

    /// Redis's own clock (`TIME`), the one clock every node shares.
    public func serverTime() async throws(RedisError) -> Duration {
        let reply = try await execute(RedisCommand("TIME"))
        guard let parts = reply.array, parts.count == 2, let seconds = parts[0].integer, let micros = parts[1].integer else {
            throw .unexpectedReply(command: "TIME", reply: reply.shape)
        }
        return .seconds(seconds) + .microseconds(micros)
    }
}



/// The Streams side of the Redis queue: work goes in with `XADD`, every node reads it as one
/// consumer of one group (`XREADGROUP`), and an entry is acknowledged (`XACK`) only after its
/// targets' final answers are recorded. Entries idle past `claimDeadline` are taken over with
/// `XAUTOCLAIM`; past `maxDeliveries` they go to the dead-letter stream.
///
/// Before sending, a node claims each (push, target) with `SET NX PX`; after the final answer it
/// turns the claim into a done marker. A taken-over entry whose target has a done marker is not
/// sent again. What remains is the window between the provider's answer and the marker write:
/// a node that dies there leaves the target to be sent again by the node that takes over.
public final class RedisWorkStream: Sendable {
    public let configuration: RedisWorkStreamConfiguration
    public let consumer: String
    private let client: RedisClient
    private let reader: RedisClient

    /// `client` runs the short commands; `reader` the blocking reads (it is blocked up to
    /// `readBlock` at a time, so it must not be shared).
    public init(client: RedisClient, reader: RedisClient, consumer: String, configuration: RedisWorkStreamConfiguration = .init()) {
        self.client = client
        self.reader = reader
        self.consumer = consumer
        self.configuration = configuration
    }

    /// Creates the group (reading from the stream's start) when it does not exist.
    public func prepare() async throws(RedisError) {
        try await client.createGroup(configuration.stream, group: configuration.group, start: "0")
    }

    /// Adds the chunks in one round trip; returns their entry ids. Every chunk is on the
    /// stream (and in the AOF, per Redis's fsync policy) when this returns.
    @discardableResult
    public func add(_ chunks: [[(String, String)]]) async throws(RedisError) -> [String] {
        let replies = try await client.pipeline(chunks.map { RedisClient.xaddCommand(configuration.stream, fields: $0) })
        return try replies.map { (reply: RedisReply) throws(RedisError) -> String in
            if case .error(let message) = reply { throw .server(message) }
            guard let id = reply.string else { throw .unexpectedReply(command: "XADD", reply: reply.shape) }
            return id
        }
    }

    /// Work for this node: first entries abandoned by other nodes (taken over; the ones past
    /// `maxDeliveries` are moved to the dead-letter stream instead), then new entries, waiting
    /// up to `readBlock` for them.
    public func next(count: Int) async throws(RedisError) -> [RedisWorkItem] {
        let taken = try await takeOver(count: count)
        if !taken.isEmpty { return taken }
        let fresh = try await reader.xreadgroup(configuration.stream, group: configuration.group, consumer: consumer,
                                                count: count, block: configuration.readBlock)
        return fresh.map { RedisWorkItem(entry: $0, deliveries: 1) }
    }

    /// Entries idle past the deadline, now this node's.
    func takeOver(count: Int) async throws(RedisError) -> [RedisWorkItem] {
        let claimed = try await client.xautoclaim(configuration.stream, group: configuration.group, consumer: consumer,
                                                  minIdle: configuration.claimDeadline, count: count)
        guard !claimed.entries.isEmpty else { return [] }
        // XAUTOCLAIM does not say how often an entry was delivered; XPENDING does.
        let counts = try await client.pipeline(claimed.entries.map {
            RedisCommand("XPENDING", configuration.stream, configuration.group, $0.id, $0.id, "1")
        })
        var items: [RedisWorkItem] = []
        for (entry, reply) in zip(claimed.entries, counts) {
            let deliveries = reply.array?.first?.array.flatMap { $0.count == 4 ? $0[3].integer : nil }.map(Int.init) ?? 1
            if deliveries > configuration.maxDeliveries {
                try await deadLetter(entry, deliveries: deliveries)
            } else {
                items.append(RedisWorkItem(entry: entry, deliveries: deliveries))
            }
        }
        return items
    }

    /// Moves the entry to the dead-letter stream and acknowledges it, in one transaction.
    private func deadLetter(_ entry: RedisStreamEntry, deliveries: Int) async throws(RedisError) {
        let fields = entry.fields + [("source-id", entry.id), ("deliveries", String(deliveries)), ("dead-by", consumer)]
        let replies = try await client.pipeline([
            RedisCommand("MULTI"),
            RedisClient.xaddCommand(configuration.deadLetterStream, fields: fields),
            RedisClient.xackCommand(configuration.stream, group: configuration.group, ids: [entry.id]),
            RedisCommand("EXEC"),
        ])
        if case .error(let message) = replies.last ?? .null { throw .server(message) }
    }

    /// Acknowledges entries whose every target has its final answer recorded.
    public func acknowledge(_ items: [RedisWorkItem]) async throws(RedisError) {
        try await client.xack(configuration.stream, group: configuration.group, ids: items.map(\.entry.id))
    }

    /// Claims (push, target) for this node for `lease` before sending it.
    public func claimTarget(push: String, target: String, lease: Duration) async throws(RedisError) -> RedisTargetClaim {
        let reply = try await client.eval(Self.claimScript, keys: [markerKey(push: push, target: target)],
                                          arguments: [consumer, String(lease.milliseconds)])
        guard let value = reply.string else { throw .unexpectedReply(command: "EVALSHA claim", reply: reply.shape) }
        if value == "done" { return .alreadyDone }
        if value == consumer { return .claimed }
        return .heldBy(value)
    }

    /// Turns the claims into done markers once the final answers are recorded.
    public func markDone(push: String, targets: [String]) async throws(RedisError) {
        guard !targets.isEmpty else { return }
        let lifetime = String(configuration.doneMarkerLifetime.milliseconds)
        let replies = try await client.pipeline(targets.map {
            RedisCommand("SET", markerKey(push: push, target: $0), "done", "PX", lifetime)
        })
        for reply in replies { if case .error(let message) = reply { throw .server(message) } }
    }

    /// The dead-letter stream, oldest first.
    public func deadLetters(count: Int = 100) async throws(RedisError) -> [RedisStreamEntry] {
        try await client.xrange(configuration.deadLetterStream, count: count)
    }

    private func markerKey(push: String, target: String) -> String { "\(configuration.markerPrefix):\(push):\(target)" }

    // KEYS[1] the marker; ARGV consumer, lease ms. "done" stays done; a claim by this consumer
    // is renewed; a free (or expired) marker becomes this consumer's. Returns the holder.
    static let claimScript = RedisScript("""
        local current = redis.call('GET', KEYS[1])
        if current == 'done' then return 'done' end
        if current and current ~= ARGV[1] then return current end
        redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
        return ARGV[1]
        """)
}

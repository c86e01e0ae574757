import Foundation

/// One master of a Redis Cluster and the slots it serves.
public struct RedisShard: Sendable, Hashable {
    /// `HOST:PORT`.
    public var address: String
    public var slots: [ClosedRange<Int>]
}

/// A Redis Cluster client's routing: the slot map (`CLUSTER SLOTS`, read at the first command,
/// again after a `MOVED` answer or a lost connection), one `RedisClient` per master (each its own
/// connection, serial queue and reconnect backoff, so a restarted master is reconnected to on
/// the next command after its backoff), and the two redirections of the cluster protocol.
/// Routing runs on the caller's task (no thread of its own): a command's only hop is onto its
/// master's connection queue, as on one Redis.
/// - `-MOVED SLOT HOST:PORT`: the slot has a new owner; the map is read again and the command
///   is sent to the owner.
/// - `-ASK SLOT HOST:PORT`: the slot is being migrated and this key is already on the target;
///   the command is sent there once, preceded by `ASKING`, and the map stays as it is.
/// - `-TRYAGAIN`: a multi-key command during a migration; sent again after a short wait.
/// A command is sent to the master of the slot of its first key (commands without a key — PING,
/// TIME, SCRIPT, MULTI/EXEC — go where the pipeline's keyed neighbours go, else to any master).
/// Every Lua script must touch keys of one slot only (use hash tags: `RedisHashSlot`).
final class RedisClusterRouter: @unchecked Sendable {
    let cluster: RedisClusterEndpoint
    private let options: RedisClientOptions
    private let lock = NSLock()
    // Guarded by `lock`.
    private var owners: [Int32] = []
    private var shards: [RedisShard] = []
    private var clients: [String: RedisClient] = [:]
    private var stale = true
    private var closed = false
    private var counters = RedisClusterCounters()
    /// The slot-map read under way, shared by the commands that need it.
    private var reading: Task<Result<Void, RedisError>, Never>?

    /// Most redirections one command follows before its last answer is returned as it is.
    static let maximumRedirections = 5

    /// Shared by every master's client: a trouble on any of them counts (`connectionTroubles`).
    private let troubles: RedisTroubleCounter

    init(cluster: RedisClusterEndpoint, options: RedisClientOptions, troubles: RedisTroubleCounter) {
        self.cluster = cluster
        self.options = options
        self.troubles = troubles
    }

    func close() {
        let all: [RedisClient] = lock.withLock {
            closed = true
            return Array(clients.values)
        }
        for client in all { client.close() }
    }

    var statistics: RedisClientStatistics {
        let all = lock.withLock { Array(clients.values) }
        return all.reduce(into: RedisClientStatistics()) { sum, client in
            let s = client.stats
            sum.connections += s.connections
            sum.reconnections += s.reconnections
            sum.connectionsLost += s.connectionsLost
            sum.failedAttempts += s.failedAttempts
        }
    }

    var clusterCounters: RedisClusterCounters { lock.withLock { counters } }

    /// The masters and their slots, read from the cluster now.
    func currentShards() async -> Result<[RedisShard], RedisError> {
        if case .failure(let error) = await refresh() { return .failure(error) }
        return .success(lock.withLock { shards })
    }

    /// Every master's client (after reading the map when there is none yet).
    func masterClients() async -> Result<[RedisClient], RedisError> {
        if lock.withLock({ owners.isEmpty }), case .failure(let error) = await refresh() { return .failure(error) }
        let addresses = lock.withLock { shards.map(\.address) }
        var out: [RedisClient] = []
        for address in addresses {
            guard let client = client(for: address) else { return .failure(.closed) }
            out.append(client)
        }
        return .success(out)
    }

    /// The commands' replies in order. Routed on the caller's task: the slot map is read under
    /// the lock, each master's share of the commands goes out as one pipeline on that master's
    /// connection, and the masters' pipelines run at the same time; then the redirections.
    func run(_ commands: [RedisCommand], readTimeout: Duration?) async -> Result<[RedisReply], RedisError> {
        if lock.withLock({ stale || owners.isEmpty }), case .failure(let error) = await refresh(), lock.withLock({ owners.isEmpty }) {
            return .failure(error)
        }
        let slots = Self.routingSlots(commands)
        var order: [String] = [], groups: [String: [Int]] = [:]
        let addresses: [String?] = lock.withLock { slots.map(addressLocked(forSlot:)) }
        for (index, address) in addresses.enumerated() {
            guard let address else { return .failure(.closed) }
            if groups[address] == nil { order.append(address) }
            groups[address, default: []].append(index)
        }
        var replies = [RedisReply](repeating: .null, count: commands.count)
        if order.count == 1 {
            switch await send(commands, to: order[0], readTimeout: readTimeout) {
            case .success(let answers): replies = answers
            case .failure(let error): return .failure(error)
            }
        } else {
            let sent = await withTaskGroup(of: (String, Result<[RedisReply], RedisError>).self) { group in
                for address in order {
                    let part = groups[address]!.map { commands[$0] }
                    group.addTask { (address, await self.send(part, to: address, readTimeout: readTimeout)) }
                }
                var out: [String: Result<[RedisReply], RedisError>] = [:]
                for await (address, result) in group { out[address] = result }
                return out
            }
            for address in order {
                switch sent[address]! {
                case .success(let answers):
                    for (k, index) in groups[address]!.enumerated() { replies[index] = answers[k] }
                case .failure(let error):
                    return .failure(error)
                }
            }
        }
        for index in replies.indices {
            var hops = 0
            while hops < Self.maximumRedirections, let redirect = Redirect(replies[index]) {
                hops += 1
                let result: Result<[RedisReply], RedisError>
                switch redirect.kind {
                case .moved:
                    lock.withLock { counters.moved += 1 }
                    _ = await refresh()
                    result = await send([commands[index]], to: redirect.address, readTimeout: readTimeout)
                case .ask:
                    lock.withLock { counters.ask += 1 }
                    result = await send([RedisCommand("ASKING"), commands[index]], to: redirect.address, readTimeout: readTimeout)
                        .map { [$0[1]] }
                case .tryAgain:
                    lock.withLock { counters.tryAgain += 1 }
                    // A migration moves the slot's keys in a few milliseconds; no clock shared to wait on.
                    try? await Task.sleep(for: .milliseconds(50 * hops))
                    let address = lock.withLock { addressLocked(forSlot: slots[index]) } ?? redirect.address
                    result = await send([commands[index]], to: address, readTimeout: readTimeout)
                }
                switch result {
                case .success(let answers): replies[index] = answers[0]
                case .failure(let error): return .failure(error)
                }
            }
        }
        return .success(replies)
    }

    // MARK: - Slot map

    /// Reads `CLUSTER SLOTS` from the first master (known or seed) that answers. Callers that
    /// need the map at the same time share one read.
    @discardableResult
    func refresh() async -> Result<Void, RedisError> {
        let (task, started): (Task<Result<Void, RedisError>, Never>, Bool) = lock.withLock {
            if let reading { return (reading, false) }
            let task = Task { await self.readSlots() }
            reading = task
            return (task, true)
        }
        let result = await task.value
        if started { lock.withLock { reading = nil } }
        return result
    }

    private func readSlots() async -> Result<Void, RedisError> {
        let known = lock.withLock { shards.map(\.address) }
        let seeds = cluster.seeds.map { Self.address(host: $0.host, port: $0.port) }
        var candidates: [String] = []
        for address in known + seeds where !candidates.contains(address) { candidates.append(address) }
        var lastError = RedisError.unavailable(endpoint: cluster.description, reason: "no seed given")
        for address in candidates {
            guard let client = client(for: address) else { return .failure(.closed) }
            let reply: RedisReply
            do { reply = try await client.execute(RedisCommand("CLUSTER", "SLOTS")) } catch {
                lastError = error
                continue
            }
            guard let map = Self.parseSlots(reply, askedHost: Self.split(address).host) else {
                lastError = .unexpectedReply(command: "CLUSTER SLOTS", reply: reply.shape)
                continue
            }
            lock.withLock {
                owners = map.owners
                shards = map.shards
                stale = false
                counters.refreshes += 1
            }
            return .success(())
        }
        lock.withLock { stale = true }
        return .failure(lastError)
    }

    static func parseSlots(_ reply: RedisReply, askedHost: String) -> (owners: [Int32], shards: [RedisShard])? {
        guard let ranges = reply.array, !ranges.isEmpty else { return nil }
        var owners = [Int32](repeating: -1, count: RedisHashSlot.count)
        var shards: [RedisShard] = []
        for range in ranges {
            guard let r = range.array, r.count >= 3, let start = r[0].integer, let end = r[1].integer,
                  let master = r[2].array, master.count >= 2, let port = master[1].integer,
                  start >= 0, end < RedisHashSlot.count, start <= end else { return nil }
            var host = master[0].string ?? ""
            if host.isEmpty || host == "?" { host = askedHost }
            let address = Self.address(host: host, port: Int(port))
            let index: Int
            if let existing = shards.firstIndex(where: { $0.address == address }) { index = existing } else {
                shards.append(RedisShard(address: address, slots: []))
                index = shards.count - 1
            }
            shards[index].slots.append(Int(start)...Int(end))
            for slot in Int(start)...Int(end) { owners[slot] = Int32(index) }
        }
        for index in shards.indices { shards[index].slots.sort { $0.lowerBound < $1.lowerBound } }
        // Sorted by first slot, so every node numbers the masters alike.
        let order = shards.indices.sorted { (shards[$0].slots.first?.lowerBound ?? 0) < (shards[$1].slots.first?.lowerBound ?? 0) }
        var renumber = [Int32](repeating: -1, count: shards.count)
        for (new, old) in order.enumerated() { renumber[old] = Int32(new) }
        owners = owners.map { $0 < 0 ? -1 : renumber[Int($0)] }
        return (owners, order.map { shards[$0] })
    }

    // MARK: - Sending

    /// The master of `slot`; called with `lock` held.
    private func addressLocked(forSlot slot: Int?) -> String? {
        if closed { return nil }
        if let slot, slot < owners.count, owners[slot] >= 0 { return shards[Int(owners[slot])].address }
        // No key, or a slot no master serves (the cluster is not ok): any master or a seed.
        return shards.first?.address ?? Self.address(host: cluster.seeds[0].host, port: cluster.seeds[0].port)
    }

    private func send(_ commands: [RedisCommand], to address: String, readTimeout: Duration?) async -> Result<[RedisReply], RedisError> {
        guard let client = client(for: address) else { return .failure(.closed) }
        do {
            return .success(try await client.pipeline(commands, readTimeout: readTimeout))
        } catch {
            // A master that went away may have been replaced: read the map before the next command.
            if error.isConnectionFailure { lock.withLock { stale = true } }
            return .failure(error)
        }
    }

    private func client(for given: String) -> RedisClient? {
        // A redirection may name the node by ":PORT" alone (no announced host): the seed's host.
        let seed = cluster.seeds[0]
        let address = given.hasPrefix(":") ? Self.address(host: seed.host, port: Self.split(given).port) : given
        return lock.withLock {
            if closed { return nil }
            if let client = clients[address] { return client }
            let parts = Self.split(address)
            let endpoint = RedisEndpoint(host: parts.host, port: parts.port, database: 0, username: seed.username, password: seed.password)
            let client = RedisClient(endpoint: endpoint, options: options, troubles: troubles)
            clients[address] = client
            return client
        }
    }

    static func address(host: String, port: Int) -> String { (host.contains(":") ? "[\(host)]" : host) + ":\(port)" }

    static func split(_ address: String) -> (host: String, port: Int) {
        guard let colon = address.lastIndex(of: ":") else { return (address, 6379) }
        var host = String(address[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return (host, Int(address[address.index(after: colon)...]) ?? 6379)
    }

    // MARK: - Which key a command is routed by

    /// The slot of each command's first key; keyless commands take their pipeline neighbour's
    /// (the previous keyed command's, else the next one's), so MULTI … EXEC stay together.
    static func routingSlots(_ commands: [RedisCommand]) -> [Int?] {
        var slots = commands.map { routingKey($0).map(RedisHashSlot.slot(of:)) }
        var previous: Int?
        for index in slots.indices {
            if let slot = slots[index] { previous = slot } else { slots[index] = previous }
        }
        var next: Int?
        for index in slots.indices.reversed() {
            if let slot = slots[index] { next = slot } else { slots[index] = next }
        }
        return slots
    }

    /// The key a command is routed by, nil when it has none.
    static func routingKey(_ command: RedisCommand) -> [UInt8]? {
        let a = command.arguments
        switch command.name {
        case "EVAL", "EVALSHA", "EVAL_RO", "EVALSHA_RO", "FCALL", "FCALL_RO":
            guard a.count > 3, let n = Int(String(decoding: a[2], as: UTF8.self)), n > 0 else { return nil }
            return a[3]
        case "XREAD", "XREADGROUP":
            guard let at = a.firstIndex(where: { String(decoding: $0, as: UTF8.self).uppercased() == "STREAMS" }), at + 1 < a.count else { return nil }
            return a[at + 1]
        case "XGROUP", "XINFO", "OBJECT", "MEMORY":
            return a.count > 2 ? a[2] : nil
        case "PING", "TIME", "INFO", "SCRIPT", "CLUSTER", "CLIENT", "ASKING", "MULTI", "EXEC", "DISCARD", "AUTH", "SELECT",
             "DBSIZE", "FLUSHALL", "FLUSHDB", "CONFIG", "COMMAND", "ECHO", "HELLO", "READONLY", "READWRITE", "WAIT":
            return nil
        default:
            return a.count > 1 ? a[1] : nil
        }
    }
}

/// Redirections and map reads of a cluster client (for `/v1/cluster` and tests).
public struct RedisClusterCounters: Sendable, Hashable {
    public var moved = 0
    public var ask = 0
    public var tryAgain = 0
    public var refreshes = 0
}

/// A `-MOVED`, `-ASK` or `-TRYAGAIN` answer.
struct Redirect {
    enum Kind { case moved, ask, tryAgain }
    var kind: Kind
    var address: String

    init?(_ reply: RedisReply) {
        guard case .error(let message) = reply else { return nil }
        let words = message.split(separator: " ")
        switch words.first {
        case "MOVED"? where words.count >= 3: kind = .moved
        case "ASK"? where words.count >= 3: kind = .ask
        case "TRYAGAIN"?: kind = .tryAgain; address = ""; return
        default: return nil
        }
        address = String(words[2])
    }
}

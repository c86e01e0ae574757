import Dispatch
import Foundation
import Synchronization

/// A Redis client over one connection: commands and pipelines with typed replies, connected
/// on first use and reconnected after a failure with exponential backoff.
///
/// Every command runs on the client's own serial queue, never on the caller's thread pool, so
/// a blocking read (`XREADGROUP … BLOCK`) stalls only this client. Use one client per blocking
/// reader and another for everything else.
///
/// A command whose connection broke mid-flight throws `.connectionLost` and is not re-sent:
/// it may have run. The next command reconnects (after the backoff).
public final class RedisClient: @unchecked Sendable {
    public let endpoint: RedisEndpoint
    public let options: RedisClientOptions
    private let queue: DispatchQueue
    // Confined to `queue`.
    private var connection: RedisConnection?
    private var backoff: Duration
    private var nextAttempt: ContinuousClock.Instant?
    /// Why the last connection attempt failed (for commands refused during the backoff).
    private var lastFailure: String?
    private var connectedOnce = false
    private var isClosed = false
    private var statistics = RedisClientStatistics()
    /// Set for a Redis Cluster client: commands go to the master of their key's slot.
    private let router: RedisClusterRouter?
    /// Connections lost and attempts failed (a cluster client's masters share one).
    private let troubles: RedisTroubleCounter

    public convenience init(endpoint: RedisEndpoint, options: RedisClientOptions = RedisClientOptions()) {
        self.init(endpoint: endpoint, options: options, troubles: RedisTroubleCounter())
    }

    /// A client that counts its connection troubles in `troubles` (a cluster's masters share
    /// their router's).
    init(endpoint: RedisEndpoint, options: RedisClientOptions, troubles: RedisTroubleCounter) {
        self.endpoint = endpoint
        self.options = options
        self.backoff = options.initialBackoff
        self.queue = DispatchQueue(label: "pushlab.redis.\(endpoint.host):\(endpoint.port)")
        router = nil
        self.troubles = troubles
    }

    /// A Redis Cluster client: the slot map is read from the seeds (`CLUSTER SLOTS`) at the
    /// first command; each command goes to its key's master over that master's own connection,
    /// following `MOVED`/`ASK` (`RedisClusterRouter`). A pipeline may mix slots (it is split
    /// per master); a Lua script must touch keys of one slot only.
    public init(cluster: RedisClusterEndpoint, options: RedisClientOptions = RedisClientOptions()) {
        endpoint = cluster.seeds[0]
        self.options = options
        backoff = options.initialBackoff
        queue = DispatchQueue(label: "pushlab.redis.cluster-client")
        troubles = RedisTroubleCounter()
        router = RedisClusterRouter(cluster: cluster, options: options, troubles: troubles)
    }

    /// The cluster's seeds when this is a Redis Cluster client.
    public var cluster: RedisClusterEndpoint? { router?.cluster }

    /// Where this client connects, without the password (`redis://…` or `redis-cluster://…`).
    public var location: String { router?.cluster.description ?? endpoint.description }

    /// Closes the connection; later commands throw `.closed`.
    public func close() {
        router?.close()
        queue.sync {
            isClosed = true
            connection?.close()
            connection = nil
        }
    }

    /// How many times so far a connection was lost or could not be made (on any master of a
    /// cluster). Read without waiting for the client's queue (an atomic), so a hot path can
    /// tell cheaply whether Redis was unreachable since it last looked: the number changed.
    public var connectionTroubles: Int { troubles.count.load(ordering: .acquiring) }

    /// Connections made, reconnections and failures so far (for `/metrics` and tests).
    public var stats: RedisClientStatistics { router?.statistics ?? queue.sync { statistics } }

    // MARK: Redis Cluster

    /// The cluster's masters and their slots, read now (`CLUSTER SLOTS`); nil for one Redis.
    public func shards() async throws(RedisError) -> [RedisShard]? {
        guard let router else { return nil }
        return try await router.currentShards().get()
    }

    /// MOVED/ASK/TRYAGAIN answers followed and slot-map reads so far; nil for one Redis.
    public var clusterCounters: RedisClusterCounters? { router?.clusterCounters }

    /// Runs `commands` once on every master of a cluster (`SCRIPT LOAD`), once on one Redis.
    public func onEveryMaster(_ commands: [RedisCommand]) async throws(RedisError) {
        guard let router else {
            _ = try await pipeline(commands)
            return
        }
        for client in try await router.masterClients().get() { _ = try await client.pipeline(commands) }
    }

    // MARK: Running commands

    /// Runs one command, blocking the calling thread; a top-level `-ERR` reply throws `.server`.
    @discardableResult
    public func executeBlocking(_ command: RedisCommand, readTimeout: Duration? = nil) throws(RedisError) -> RedisReply {
        let reply = try pipelineBlocking([command], readTimeout: readTimeout)[0]
        if case .error(let message) = reply { throw .server(message) }
        return reply
    }

    /// Sends the commands in one round trip and returns each reply in order; error replies
    /// come back as `.error` values, not thrown. (A cluster client routes asynchronously: this
    /// waits for it, so call it from a thread of your own, never from Swift concurrency's pool.)
    public func pipelineBlocking(_ commands: [RedisCommand], readTimeout: Duration? = nil) throws(RedisError) -> [RedisReply] {
        guard !commands.isEmpty else { return [] }
        if let router {
            let done = DispatchSemaphore(value: 0)
            let box = BlockingResult()
            Task {
                box.set(await router.run(commands, readTimeout: readTimeout))
                done.signal()
            }
            done.wait()
            return try box.get().get()
        }
        let result: Result<[RedisReply], RedisError> = queue.sync { run(commands, readTimeout: readTimeout) }
        return try result.get()
    }

    /// Runs one command without blocking the caller's thread.
    @discardableResult
    public func execute(_ command: RedisCommand, readTimeout: Duration? = nil) async throws(RedisError) -> RedisReply {
        let reply = try await pipeline([command], readTimeout: readTimeout)[0]
        if case .error(let message) = reply { throw .server(message) }
        return reply
    }

    /// `pipelineBlocking` without blocking the caller's thread.
    public func pipeline(_ commands: [RedisCommand], readTimeout: Duration? = nil) async throws(RedisError) -> [RedisReply] {
        guard !commands.isEmpty else { return [] }
        if let router { return try await router.run(commands, readTimeout: readTimeout).get() }
        let result: Result<[RedisReply], RedisError> = await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: self.run(commands, readTimeout: readTimeout)) }
        }
        return try result.get()
    }

    // MARK: On the queue

    private func run(_ commands: [RedisCommand], readTimeout: Duration?) -> Result<[RedisReply], RedisError> {
        let connection: RedisConnection
        switch connected() {
        case .success(let c): connection = c
        case .failure(let error): return .failure(error)
        }
        do {
            let timeout = readTimeout.map { $0 + options.ioTimeout }
            return .success(try connection.pipeline(commands, readTimeout: timeout))
        } catch {
            self.connection = nil
            statistics.connectionsLost += 1
            troubles.count.add(1, ordering: .releasing)
            return .failure(.connectionLost(endpoint: endpoint.description, reason: error.reason))
        }
    }

    /// The open connection, or a new one. Until the backoff after a failed attempt has passed,
    /// a command fails at once with the last attempt's reason instead of waiting on the
    /// client's queue: commands queued behind it (a node's key lookups during an outage) would
    /// otherwise wait out each other's backoffs one after another — 20 concurrent requests
    /// took up to 28.9 s to get their 503 (issue 43). Callers that retry pace themselves.
    private func connected() -> Result<RedisConnection, RedisError> {
        if isClosed { return .failure(.closed) }
        if let connection { return .success(connection) }
        if let nextAttempt, ContinuousClock.now < nextAttempt {
            return .failure(.unavailable(endpoint: endpoint.description, reason: lastFailure ?? "backing off"))
        }
        do {
            let connection = try RedisConnection(host: endpoint.host, port: endpoint.port,
                                                 connectTimeout: options.connectTimeout, ioTimeout: options.ioTimeout)
            try handshake(connection)
            self.connection = connection
            if connectedOnce { statistics.reconnections += 1 }
            connectedOnce = true
            statistics.connections += 1
            backoff = options.initialBackoff
            nextAttempt = nil
            lastFailure = nil
            return .success(connection)
        } catch {
            statistics.failedAttempts += 1
            troubles.count.add(1, ordering: .releasing)
            lastFailure = error.reason
            // Full jitter over the upper half: nodes restarted together do not retry in step.
            let wait = backoff * Double.random(in: 0.5...1.0)
            nextAttempt = ContinuousClock.now + wait
            backoff = min(backoff * 2, options.maximumBackoff)
            return .failure(.unavailable(endpoint: endpoint.description, reason: error.reason))
        }
    }

    /// AUTH, SELECT and CLIENT SETNAME, in one round trip.
    private func handshake(_ connection: RedisConnection) throws(RedisHandshakeFailure) {
        var commands: [RedisCommand] = []
        if let password = endpoint.password {
            commands.append(endpoint.username.map { RedisCommand("AUTH", $0, password) } ?? RedisCommand("AUTH", password))
        }
        if endpoint.database != 0 { commands.append(RedisCommand("SELECT", String(endpoint.database))) }
        if let name = options.clientName { commands.append(RedisCommand("CLIENT", "SETNAME", name)) }
        guard !commands.isEmpty else { return }
        let replies: [RedisReply]
        do { replies = try connection.pipeline(commands) } catch { throw RedisHandshakeFailure(reason: error.reason) }
        for (command, reply) in zip(commands, replies) {
            if case .error(let message) = reply {
                connection.close()
                throw RedisHandshakeFailure(reason: "\(command.name) failed: \(message)")
            }
        }
    }
}

/// The connection troubles of a client (or of a cluster client's masters together).
final class RedisTroubleCounter: Sendable {
    let count = Atomic<Int>(0)
}

/// The answer a blocking call on a cluster client waits for.
private final class BlockingResult: @unchecked Sendable {
    private let lock = NSLock()
    private var result: Result<[RedisReply], RedisError> = .failure(.closed)
    func set(_ value: Result<[RedisReply], RedisError>) { lock.withLock { result = value } }
    func get() -> Result<[RedisReply], RedisError> { lock.withLock { result } }
}

private struct RedisHandshakeFailure: Error {
    var reason: String
}

private extension Error {
    var reason: String {
        if let failure = self as? RedisConnectionFailure { return failure.reason }
        if let failure = self as? RedisHandshakeFailure { return failure.reason }
        return String(describing: self)
    }
}

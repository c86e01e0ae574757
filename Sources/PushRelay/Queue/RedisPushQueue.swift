import Foundation
import PushCore
import PushHTTP
import PushRedis

/// The queue several relay nodes share: Redis Streams with one consumer group
/// (`RedisWorkStream`'s stream, group and dead-letter stream), one stream entry per chunk of
/// a push's targets (`Configuration.chunkSize`), so Redis's work is per chunk and per batch of
/// results, not per target (`RedisQueueScripts` has the layout).
///
/// - `enqueue` is one Lua script: the idempotency key, the capacity check, the push, its
///   targets and their stream entries are written together or not at all; it returns once
///   Redis has them (durable per Redis's AOF policy: docs/relay.md "Running several nodes").
/// - `claim` (one script) puts due retries back on the stream, takes over entries whose lease
///   ended (`XCLAIM`; past `maxDeliveries` their targets go to the dead-letter stream with a
///   final failure), reads new ones (`XREADGROUP`) and leases them in `P:leases`; a chunk with
///   more targets left than the claim's limit is split. Lease ends are
///   judged on the queue's `TimeSource` (the nodes' clocks), so the lease rule of the contract
///   holds as for SQLite. When nothing is ready it waits up to `idleBlock` for a new entry
///   (`XREAD BLOCK`), so an idle cluster picks up new work at once.
/// - `complete` stores the first final result per (push, target) — the done marker — in bulk
///   (one `HMGET` and one `HSET` per push and batch) and acknowledges (`XACK`) each entry whose
///   targets are all answered, in the same script. An entry taken over after its target
///   was answered is acknowledged and not handed out again. The window left: a node that dies
///   between the provider's answer and this script; the target is sent again after its lease.
/// - The read side (status, deliveries, invalid tokens) reads Redis, so any node answers for
///   any push; each app's final results also go to the results stream `P:delivered:APP`.
public final class RedisPushQueue: PushQueue {
    public struct Configuration: Sendable {
        /// Key prefix; nodes of one cluster use the same one.
        public var prefix: String
        /// Most unfinished targets (waiting + claimed) the cluster holds; beyond it `.full`.
        public var capacity: Int
        /// Past this many deliveries (take-overs) an entry goes to the dead-letter stream.
        public var maxDeliveries: Int
        /// How long an empty `claim` waits for new entries; zero returns at once.
        public var idleBlock: Duration
        /// How long a finished push's keys (its status, targets, results — the done markers —
        /// and its idempotency key) stay in Redis; then they expire, so Redis does not grow
        /// with every push ever sent. `GET /v1/pushes/{id}` answers 404 after it; the delivery
        /// log (`P:delivered:APP`, capped) keeps the results.
        public var retention: Duration = .seconds(7 * 24 * 3600)
        /// Most targets in one stream entry: a push is queued as chunks of this many, and a
        /// node claims, leases and acknowledges a chunk at a time (results stay per target).
        public var chunkSize: Int
        public init(prefix: String = "pushlab", capacity: Int = 2_000_000, maxDeliveries: Int = 5, idleBlock: Duration = .milliseconds(500),
                    chunkSize: Int = 64) {
            precondition(chunkSize > 0, "a chunk holds at least one target")
            self.chunkSize = chunkSize
            self.prefix = prefix
            self.capacity = capacity
            self.maxDeliveries = maxDeliveries
            self.idleBlock = idleBlock
        }
    }

    public let endpoint: RedisEndpoint
    public let configuration: Configuration
    /// The base stream (single Redis: the queue's only stream; the consumer name).
    public let stream: RedisWorkStream
    /// Short commands and scripts (on a Redis Cluster: routed to each key's master).
    let client: RedisClient
    /// Blocking reads only.
    private let reader: RedisClient
    private let time: any TimeSource
    private let closed = SanitizerVisibleMutex(false)
    /// Per push read on this node: its app, content and — for a push spread over a cluster's
    /// lanes — its whole target count.
    private let contents = SanitizerVisibleMutex<[PushID: (app: String, content: [UInt8], total: Int?)]>([:])
    /// The streams with their keys: one on a single Redis, one per master on a Redis Cluster
    /// (set by `prepare()`).
    private let lanesState = SanitizerVisibleMutex<[RedisQueueLane]>([])
    /// Where the next claim starts reading, so every lane is read first in turn.
    private let nextLane = SanitizerVisibleMutex(0)
    /// Lanes of a results batch recorded before a later lane of the same batch failed, by the
    /// lane's part of the batch: `DeliveryWorkers` retries the whole batch, and a second
    /// `complete` of a part already recorded would call its results duplicates and drop their
    /// events (webhooks, `push_finished`). The retry takes the stored report instead.
    private let recordedAhead = SanitizerVisibleMutex<[String: LaneCompletion]>([:])
    /// A lane's blocking read in flight (cluster: one per lane, waited for together).
    private let pendingReads = SanitizerVisibleMutex<[Int: Task<Bool, Never>]>([:])
    private var retentionMilliseconds: String {
        let (seconds, attoseconds) = configuration.retention.components
        return String(max(1, seconds * 1000 + attoseconds / 1_000_000_000_000_000))
    }

    /// Connects lazily; `prepare()` creates the consumer group.
    public init(endpoint: RedisEndpoint, configuration: Configuration = Configuration(), time: any TimeSource = SystemTimeSource(),
                clientName: String? = nil) {
        self.endpoint = endpoint
        self.configuration = configuration
        self.time = time
        client = RedisClient(endpoint: endpoint, options: RedisClientOptions(clientName: clientName))
        reader = RedisClient(endpoint: endpoint, options: RedisClientOptions(clientName: clientName.map { $0 + "-reader" }))
        stream = RedisWorkStream(client: client, reader: reader, consumer: clientName ?? "relay",
                                 configuration: RedisWorkStreamConfiguration(prefix: configuration.prefix, maxDeliveries: configuration.maxDeliveries))
        lanesState.withLock { $0 = [RedisQueueLane(index: 0, prefix: configuration.prefix)] }
    }

    /// A queue on a Redis Cluster (`redis-cluster://…`): one stream per master, each with its
    /// own keys under a hash tag (`RedisQueueLane`), chosen at the first `prepare()` of the
    /// cluster and kept in Redis so every node uses the same ones.
    public init(cluster: RedisClusterEndpoint, configuration: Configuration = Configuration(), time: any TimeSource = SystemTimeSource(),
                clientName: String? = nil) {
        endpoint = cluster.seeds[0]
        self.configuration = configuration
        self.time = time
        client = RedisClient(cluster: cluster, options: RedisClientOptions(clientName: clientName))
        reader = RedisClient(cluster: cluster, options: RedisClientOptions(clientName: clientName.map { $0 + "-reader" }))
        stream = RedisWorkStream(client: client, reader: reader, consumer: clientName ?? "relay",
                                 configuration: RedisWorkStreamConfiguration(prefix: RedisQueueLane.sharedPrefix(configuration.prefix),
                                                                            maxDeliveries: configuration.maxDeliveries))
    }

    /// Whether this queue runs on a Redis Cluster.
    public var isCluster: Bool { client.cluster != nil }

    /// Where the queue's Redis is, without the password.
    public var location: String { client.location }

    /// The prefix of the state the nodes share besides the queue (API keys, provider tokens,
    /// send budgets, heartbeats): the queue's prefix on one Redis, `{PREFIX}` (one hash tag, so
    /// one slot) on a Redis Cluster.
    public var sharedPrefix: String { isCluster ? RedisQueueLane.sharedPrefix(configuration.prefix) : configuration.prefix }

    /// The queue's streams (after `prepare()` on a cluster).
    public var lanes: [RedisQueueLane] { lanesState.withLock { $0 } }

    /// Connects and creates the consumer groups when they do not exist; on a cluster first
    /// reads (or, the first time, chooses) the lanes.
    public func prepare() async throws(PushQueueError) {
        try await redis { () async throws(RedisError) in
            if isCluster, lanes.isEmpty {
                let chosen = try await chooseLanes()
                lanesState.withLock { $0 = chosen }
            }
            for lane in lanes { _ = try await client.createGroup(lane.stream, group: lane.group, start: "0") }
            try await client.load([RedisQueueScripts.enqueue, RedisQueueScripts.claim, RedisQueueScripts.complete, RedisQueueScripts.reschedule,
                                   RedisQueueScripts.renew, RedisQueueScripts.release, RedisRateBudget.luaScript])
        }
    }

    /// The cluster's lanes: the ones stored at `{P}:lanes`, else one per master (a hash tag
    /// whose slot that master serves), stored with `SET NX` so the first node's choice holds.
    private func chooseLanes() async throws(RedisError) -> [RedisQueueLane] {
        let key = sharedPrefix + ":lanes"
        if let stored = try await client.get(key), let lanes = RedisQueueLane.parse(stored) { return lanes }
        let shards = try await client.shards() ?? []
        guard !shards.isEmpty else { throw .unexpectedReply(command: "CLUSTER SLOTS", reply: "no masters") }
        let tags = RedisQueueLane.tags(prefix: configuration.prefix, shards: shards)
        _ = try await client.setIfAbsent(key, value: tags.joined(separator: ","), expiresIn: nil)
        guard let stored = try await client.get(key), let lanes = RedisQueueLane.parse(stored) else {
            throw .unexpectedReply(command: "GET \(key)", reply: "no lanes")
        }
        return lanes
    }

    /// Claims of whole chunks split none.
    public var claimGranularity: Int { configuration.chunkSize }

    /// A cluster's receipts start with their lane's index (`LANE@`): `complete` writes each
    /// lane's results in a call of its own.
    public func stream(ofReceipt receipt: String) -> Int {
        guard isCluster, let at = receipt.utf8.firstIndex(of: UInt8(ascii: "@")) else { return 0 }
        return Int(receipt[..<at]) ?? 0
    }

    /// The Redis client for the state nodes share besides the queue (provider tokens, budgets).
    public var sharedClient: RedisClient { client }

    private func lanesOrThrow() throws(PushQueueError) -> [RedisQueueLane] {
        let lanes = self.lanes
        guard !lanes.isEmpty else { throw .storage("\(location): the queue is not prepared (no lanes read from the cluster yet)") }
        return lanes
    }

    /// Where a push's targets go on a cluster: a push of more than one chunk is cut into one
    /// part per lane (at most one per chunk) of whole chunks — near-equal numbers of chunks, of
    /// consecutive targets — so each master gets about 1/N of the targets whatever the push
    /// sizes and only the push's last chunk can be partly filled (a cut inside a chunk would
    /// leave a partly filled stream entry in every lane: more entries to claim, lease and
    /// acknowledge per target); a smaller push is one part.
    /// The biggest part goes to the least loaded lane (fewest unfinished targets) of the lanes
    /// that answered, the next to the next, or — for a push with an idempotency key, whose retry
    /// must find the same lanes — the parts go in turn from a lane chosen by the key's hash. Each part is a push of its own in its lane (the scripts are
    /// per lane), with the push's id and its `total`; the read side adds the parts up.
    /// `unfinished`: each lane's unfinished targets, nil for a lane whose master did not answer.
    public func parts(of submission: PushSubmission, lanes: [RedisQueueLane], unfinished: [Int?]) -> [(lane: RedisQueueLane, targets: Range<Int>)] {
        let n = submission.targets.count
        guard lanes.count > 1 else { return [(lanes[0], 0..<n)] }
        let chunks = (n + configuration.chunkSize - 1) / configuration.chunkSize
        let hashed = RedisHashSlot.slot(of: submission.idempotencyKey.map { "idem:\(submission.app):\($0)" } ?? submission.id.rawValue)
        var usable = lanes.indices.filter { submission.idempotencyKey != nil || unfinished[$0] != nil }
        if usable.isEmpty { usable = Array(lanes.indices) }
        let k = max(1, min(usable.count, chunks)), size = configuration.chunkSize
        let ranges = (0..<k).map { part in min(n, chunks * part / k * size)..<min(n, chunks * (part + 1) / k * size) }
        var laneOf = [Int](repeating: 0, count: k)
        if submission.idempotencyKey != nil {
            let start = usable.firstIndex(of: hashed % lanes.count) ?? 0
            for part in 0..<k { laneOf[part] = usable[(start + part) % usable.count] }
        } else {
            // The biggest part to the least loaded lane, and so on; equal loads in an order
            // rotated by the id's hash, so equal lanes are chosen alike often.
            let rotated = usable.indices.map { usable[($0 + hashed) % usable.count] }
            let byLoad = rotated.indices.sorted { (unfinished[rotated[$0]] ?? 0, $0) < (unfinished[rotated[$1]] ?? 0, $1) }.map { rotated[$0] }
            let bySize = ranges.indices.sorted { (ranges[$0].count, $1) > (ranges[$1].count, $0) }
            for (rank, part) in bySize.enumerated() { laneOf[part] = byLoad[rank] }
        }
        return (0..<k).map { (lanes[laneOf[$0]], ranges[$0]) }
    }

    /// A receipt as the scripts know it and its lane (a cluster's receipts start with `LANE@`).
    private func unwrap(_ receipt: String, in lanes: [RedisQueueLane]) -> (RedisQueueLane, String) {
        guard lanes.count > 1 || isCluster, let at = receipt.firstIndex(of: "@"), let index = Int(receipt[..<at]), index < lanes.count else {
            return (lanes[0], receipt)
        }
        return (lanes[index], String(receipt[receipt.index(after: at)...]))
    }

    private func wrap(_ receipt: String, lane: RedisQueueLane) -> String { isCluster ? "\(lane.index)@\(receipt)" : receipt }

    // MARK: - PushQueue

    public func enqueue(_ submission: PushSubmission) async throws(PushQueueError) -> EnqueueReceipt {
        try checkOpen()
        let lanes = try lanesOrThrow()
        let capacity = configuration.capacity
        var unfinished: [Int?] = [0]
        if lanes.count > 1 {
            // The script sees its own lane's count only: the cluster's is the sum, read first.
            // Pushes queued at the same moment on other lanes may pass together, and a lane
            // whose master is down counts 0 meanwhile (docs/redis.md "Redis Cluster"): one
            // master down must not refuse the pushes of the others.
            unfinished = await unfinishedPerLane(lanes)
            let sum = unfinished.reduce(0) { $0 + ($1 ?? 0) }
            if sum + submission.targets.count > capacity {
                throw .full(unfinished: sum, incoming: submission.targets.count, capacity: capacity)
            }
        }
        let parts = parts(of: submission, lanes: lanes, unfinished: unfinished)
        // Part by part, the first first: its answer says whether this is a replay, and of which
        // push; the later parts then carry that push's id. A later part's idempotency key names
        // the push (`KEY@ID`), so a retry after a part failed writes the missing parts once.
        var id = submission.id
        var replay: EnqueueReceipt?
        for (k, part) in parts.enumerated() {
            var piece = submission
            piece.id = id
            if k > 0 { piece.idempotencyKey = submission.idempotencyKey.map { "\($0)@\(id)" } }
            let answer = try await enqueue(piece, part: part.targets, in: part.lane, total: parts.count > 1 ? submission.targets.count : nil,
                                           capacity: k == 0 ? capacity : Int.max)
            switch answer {
            case .ok:
                continue
            case .replay(let first, let fingerprint, let count, let acceptedAt):
                if fingerprint != (submission.requestFingerprint ?? "") {
                    throw .idempotencyConflict(key: submission.idempotencyKey ?? "", pushID: first)
                }
                if k == 0 {
                    id = first
                    // The same request (same fingerprint) as the first: the same targets.
                    replay = EnqueueReceipt(pushID: first, targetCount: parts.count > 1 ? submission.targets.count : count,
                                            acceptedAt: acceptedAt, isReplay: true)
                }
            case .full(let count):
                throw .full(unfinished: count, incoming: submission.targets.count, capacity: capacity)
            }
        }
        return replay ?? EnqueueReceipt(pushID: submission.id, targetCount: submission.targets.count, acceptedAt: submission.acceptedAt,
                                        isReplay: false)
    }

    /// Each lane's unfinished targets, read on every master at once; nil for a lane whose master
    /// did not answer.
    private func unfinishedPerLane(_ lanes: [RedisQueueLane]) async -> [Int?] {
        await withTaskGroup(of: (Int, Int?).self) { group in
            for lane in lanes {
                group.addTask { [client] in
                    let reply = try? await client.execute(RedisCommand("GET", "\(lane.prefix):unfinished"))
                    return (lane.index, reply.map { Int($0.integer ?? 0) })
                }
            }
            var out = [Int?](repeating: nil, count: lanes.count)
            for await (index, count) in group { out[index] = count }
            return out
        }
    }

    private enum EnqueueAnswer {
        case ok
        case replay(PushID, fingerprint: String, count: Int, acceptedAt: Date)
        case full(unfinished: Int)
    }

    /// The enqueue script for the targets `part` of `submission` in `lane`.
    private func enqueue(_ submission: PushSubmission, part: Range<Int>, in lane: RedisQueueLane, total: Int?,
                         capacity: Int) async throws(PushQueueError) -> EnqueueAnswer {
        let P = lane.prefix
        let idempotencyKey = submission.idempotencyKey.map { "\(P):idem:\(submission.app):\($0)" } ?? P
        var arguments = [P, submission.id.rawValue, submission.app, String(decoding: submission.content, as: UTF8.self),
                         String(part.count), String(submission.acceptedAt.timeIntervalSince1970),
                         submission.idempotencyKey ?? "", submission.requestFingerprint ?? "", String(capacity),
                         String(configuration.chunkSize)]
        func definition(_ target: PushTarget) -> String {
            target.kind.rawValue + "\u{1f}" + (target.environment?.rawValue ?? "") + "\u{1f}" + target.value
        }
        if part.contains(where: { submission.targets[$0].value.utf8.contains(0x1E) }) {
            // A value holding RS cannot be joined by RS: one argument (and field) per target.
            arguments.append("0")
            arguments.reserveCapacity(arguments.count + 2 * part.count + 1)
            for index in part { arguments += [String(index), definition(submission.targets[index])] }
        } else {
            // Each chunk's definitions joined here, one argument per chunk: the script stores
            // them as they are, with no work per target.
            arguments += ["1", String(part.lowerBound)]
            for from in stride(from: part.lowerBound, to: part.upperBound, by: configuration.chunkSize) {
                let chunk = from..<min(part.upperBound, from + configuration.chunkSize)
                arguments.append(chunk.map { definition(submission.targets[$0]) }.joined(separator: "\u{1e}"))
            }
        }
        if let total { arguments.append(String(total)) }
        let keys = [idempotencyKey, "\(P):push:\(submission.id)", "\(P):targets:\(submission.id)", lane.stream]
        let reply = try await redis { () async throws(RedisError) in try await client.eval(RedisQueueScripts.enqueue, keys: keys, arguments: arguments) }
        let parts = reply.array?.compactMap(\.string) ?? []
        switch parts.first {
        case "ok"?:
            return .ok
        case "replay"? where parts.count == 5:
            return .replay(PushID(parts[1]), fingerprint: parts[2], count: Int(parts[3]) ?? 0,
                           acceptedAt: Date(timeIntervalSince1970: Double(parts[4]) ?? 0))
        case "full"? where parts.count == 2:
            return .full(unfinished: Int(parts[1]) ?? 0)
        default:
            throw .storage("Redis answered the enqueue script with \(reply.shape)")
        }
    }

    public func claim(consumer: String, limit: Int, lease: Duration) async throws(PushQueueError) -> [ClaimedTarget] {
        guard limit > 0 else { return [] }
        try checkOpen()
        let lanes = try lanesOrThrow()
        var (lastIDs, claimed) = try await claimFromLanes(lanes, consumer: consumer, limit: limit, lease: lease)
        if claimed.isEmpty, configuration.idleBlock > .zero {
            // Wait for an entry newer than the last one seen (on any lane), then claim again.
            if try await waitForNewEntry(lanes, after: lastIDs) {
                (lastIDs, claimed) = try await claimFromLanes(lanes, consumer: consumer, limit: limit, lease: lease)
            }
        }
        return claimed
    }

    /// Claims from each lane in turn until `limit` targets are claimed; the first lane read
    /// changes with every call, so no lane waits behind another. Returns each lane's last
    /// stream id and the claims.
    private func claimFromLanes(_ lanes: [RedisQueueLane], consumer: String, limit: Int,
                                lease: Duration) async throws(PushQueueError) -> ([String], [ClaimedTarget]) {
        let first = nextLane.withLock { n in defer { n &+= 1 }; return n }
        var lastIDs = [String](repeating: "0-0", count: lanes.count)
        var claimed: [ClaimedTarget] = []
        var failure: PushQueueError?
        for k in 0..<lanes.count {
            let lane = lanes[(first + k) % lanes.count]
            guard claimed.count < limit else { lastIDs[lane.index] = "$"; continue }
            do {
                let (last, got) = try await claimOnce(lane, consumer: consumer, limit: limit - claimed.count, lease: lease)
                // '': the script handed targets out and read no newest id (waiting then reads from now on).
                lastIDs[lane.index] = last.isEmpty ? "$" : last
                claimed += got
            } catch {
                // One master down must not stop the others' work: its lane waits for it.
                if lanes.count == 1 || error == .closed { throw error }
                failure = error
                lastIDs[lane.index] = "$"
            }
        }
        if claimed.isEmpty, let failure { throw failure }
        return (lastIDs, claimed.sorted { ($0.pushID, $0.index) < ($1.pushID, $1.index) })
    }

    /// Blocks until an entry newer than `lastIDs` is on some lane or `idleBlock` passed. On a
    /// cluster every lane gets its own `XREAD BLOCK` (each master's connection blocks alone);
    /// the first that sees an entry ends the wait, the others finish on their own within
    /// `idleBlock` and are reused by the next wait rather than started again.
    private func waitForNewEntry(_ lanes: [RedisQueueLane], after lastIDs: [String]) async throws(PushQueueError) -> Bool {
        let block = configuration.idleBlock
        let ms = String(block.components.seconds * 1000 + block.components.attoseconds / 1_000_000_000_000_000)
        if lanes.count == 1 {
            let reply = try await redis { () async throws(RedisError) in
                try await reader.execute(RedisCommand("XREAD", "COUNT", "1", "BLOCK", ms, "STREAMS", lanes[0].stream, lastIDs[0]),
                                         readTimeout: block)
            }
            return !reply.isNull
        }
        let laneReader = self.reader
        let tasks: [Task<Bool, Never>] = pendingReads.withLock { pending in
            lanes.map { lane in
                if let running = pending[lane.index] { return running }
                let id = lastIDs[lane.index] == "0-0" ? "$" : lastIDs[lane.index]
                let task = Task { [pendingReads] in
                    let reply = try? await laneReader.execute(RedisCommand("XREAD", "COUNT", "1", "BLOCK", ms, "STREAMS", lane.stream, id),
                                                          readTimeout: block)
                    pendingReads.withLock { $0[lane.index] = nil }
                    return reply.map { !$0.isNull } ?? false
                }
                pending[lane.index] = task
                return task
            }
        }
        return await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let state = SanitizerVisibleMutex((done: false, left: tasks.count))
            for task in tasks {
                Task {
                    let seen = await task.value
                    let resume = state.withLock { s -> Bool in
                        guard !s.done else { return false }
                        s.left -= 1
                        if seen || s.left == 0 { s.done = true; return true }
                        return false
                    }
                    if resume { continuation.resume(returning: seen) }
                }
            }
        }
    }

    private func claimOnce(_ lane: RedisQueueLane, consumer: String, limit: Int, lease: Duration) async throws(PushQueueError) -> (String, [ClaimedTarget]) {
        let now = time.now.timeIntervalSince1970
        let leaseEnd = now + lease.seconds
        let arguments = [lane.prefix, lane.group, consumer, String(now), String(leaseEnd), String(limit), String(configuration.maxDeliveries),
                         retentionMilliseconds, String(configuration.chunkSize)]
        let reply = try await redis { () async throws(RedisError) in
            try await client.eval(RedisQueueScripts.claim, keys: [lane.stream], arguments: arguments)
        }
        guard let flat = reply.array?.map({ $0.string ?? "" }), let lastID = flat.first else {
            throw .storage("Redis answered the claim script with \(reply.shape)")
        }
        var claims: [ClaimedTarget] = []
        var index = 1
        // Per entry: receipt, push, app, deliveries, k, then 'r', the first target and the k
        // definitions joined by RS (a whole chunk), or 'l' and k × (target, definition, attempts).
        while index + 6 <= flat.count {
            let receipt = wrap(flat[index], lane: lane), push = PushID(flat[index + 1]), app = flat[index + 2]
            let count = Int(flat[index + 4]) ?? 0, whole = flat[index + 5] == "r"
            index += 6
            let content = try await content(of: push, in: lane)
            func claimed(_ target: Int, _ definition: Substring, attempts: Int) -> ClaimedTarget? {
                guard let content else { return nil }
                let f = Self.split(definition)
                return ClaimedTarget(pushID: push, index: target, app: app,
                                     target: PushTarget(kind: PushTarget.Kind(rawValue: f[0]) ?? .apnsToken, value: f.count > 2 ? f[2] : "",
                                                        environment: f.count > 1 ? APNsEnvironment(rawValue: f[1]) : nil),
                                     content: content.content, attempts: attempts, receipt: receipt)
            }
            if whole {
                guard index + 2 <= flat.count, let first = Int(flat[index]) else { break }
                let definitions = flat[index + 1].utf8.split(separator: 0x1E, omittingEmptySubsequences: false)
                guard definitions.count == count else {
                    throw .storage("Redis answered the claim script with \(definitions.count) definitions for a chunk of \(count)")
                }
                for (k, definition) in definitions.enumerated() {
                    if let claim = claimed(first + k, Substring(definition), attempts: 0) { claims.append(claim) }
                }
                index += 2
            } else {
                guard index + 3 * count <= flat.count else { break }
                for k in 0..<count {
                    let at = index + 3 * k
                    if let claim = claimed(Int(flat[at]) ?? 0, flat[at + 1][...], attempts: Int(flat[at + 2]) ?? 0) { claims.append(claim) }
                }
                index += 3 * count
            }
        }
        return (lastID, claims)
    }

    /// A push's app, content and `total` (a part of a push spread over lanes), read once per node.
    private func content(of push: PushID, in lane: RedisQueueLane) async throws(PushQueueError) -> (app: String, content: [UInt8], total: Int?)? {
        if let hit = contents.withLock({ $0[push] }) { return hit }
        let reply = try await redis { () async throws(RedisError) in
            try await client.execute(RedisCommand("HMGET", "\(lane.prefix):push:\(push)", "app", "content", "total"))
        }
        guard let parts = reply.array, parts.count == 3, let app = parts[0].string, case .bulk(let bytes) = parts[1] else { return nil }
        let value = (app, bytes, parts[2].string.flatMap { Int($0) })
        contents.withLock { c in
            if c.count >= 256 { c.removeAll(keepingCapacity: true) }
            c[push] = value
        }
        return value
    }

    @discardableResult
    public func complete(_ results: [TargetCompletion]) async throws(PushQueueError) -> CompletionReport {
        guard !results.isEmpty else { return CompletionReport() }
        try checkOpen()
        let lanes = try lanesOrThrow()
        if !isCluster { return try await complete(results, in: lanes[0]).report }
        // One script call per lane, each with the receipts as its scripts know them; the lanes'
        // masters record at the same time.
        var byLane: [Int: [Int]] = [:]
        for (position, result) in results.enumerated() { byLane[unwrap(result.claim.receipt, in: lanes).0.index, default: []].append(position) }
        let work = byLane.sorted(by: { $0.key < $1.key }).map { laneIndex, positions in
            let part = positions.map { position -> TargetCompletion in
                var result = results[position]
                result.claim.receipt = unwrap(result.claim.receipt, in: lanes).1
                return result
            }
            let key = "\(laneIndex)|" + part.map { "\($0.claim.pushID)/\($0.claim.index)/\($0.claim.receipt)" }.joined(separator: ",")
            return (lane: lanes[laneIndex], positions: positions, part: part, key: key)
        }
        let byKey = await withTaskGroup(of: (String, Result<LaneCompletion, PushQueueError>).self) { group in
            for w in work {
                group.addTask { (w.key, await self.completeLanePart(w.part, in: w.lane, key: w.key)) }
            }
            var out: [String: Result<LaneCompletion, PushQueueError>] = [:]
            for await (key, outcome) in group { out[key] = outcome }
            return out
        }
        let outcomes = work.map { byKey[$0.key] ?? .failure(.storage("\(location): no answer for lane \($0.lane.index)")) }
        var report = CompletionReport()
        var failure: PushQueueError?
        var finishedParts: [PushID: (total: Int?, parts: [Int: Int])] = [:]
        for (w, outcome) in zip(work, outcomes) {
            switch outcome {
            case .failure(let error): failure = failure ?? error
            case .success(let got):
                report.recorded += got.report.recorded
                report.duplicates += got.report.duplicates
                report.ignoredPositions += got.report.ignoredPositions.map { w.positions[$0] }
                for part in got.finished {
                    finishedParts[part.push, default: (part.total, [:])].parts[w.lane.index] = part.count
                }
            }
        }
        do throws(PushQueueError) {
            if let failure { throw failure }
            report.finishedPushes = try await wholePushesFinished(finishedParts, lanes: lanes)
        } catch {
            // `DeliveryWorkers` retries the whole batch: the lanes recorded now give their
            // reports to the retry.
            recordedAhead.withLock { ahead in
                if ahead.count > 1_000 { ahead.removeAll() }  // retries that never came
                for (w, outcome) in zip(work, outcomes) { if case .success(let got) = outcome { ahead[w.key] = got } }
            }
            throw error
        }
        report.ignoredPositions.sort()
        return report
    }

    /// One lane's part of a results batch: the report stored by an earlier try that failed in
    /// another lane, or the lane's complete script.
    private func completeLanePart(_ part: [TargetCompletion], in lane: RedisQueueLane, key: String) async -> Result<LaneCompletion, PushQueueError> {
        if let stored = recordedAhead.withLock({ $0.removeValue(forKey: key) }) { return .success(stored) }
        do {
            return .success(try await complete(part, in: lane))
        } catch {
            return .failure(error)
        }
    }

    /// What a lane's complete script did with its part of a batch: the report, and per push it
    /// finished in the lane, the lane's part `count` and the push's `total` (nil: one part).
    private struct LaneCompletion: Sendable {
        var report: CompletionReport
        var finished: [(push: PushID, count: Int, total: Int?)]
    }

    /// Of the pushes whose part in a lane just finished (with each such lane's part count and the
    /// push's `total`), those finished whole: a push in one part is; a push spread over lanes is
    /// when its parts' results add up to its `total`. The parts this batch finished count whole,
    /// so only the other lanes are read (a part not written yet reads as nothing answered, so a
    /// push whose later part is still being queued is not whole). It is announced by one node
    /// only (`SET NX` of `P:announced:ID` in the lane its id hashes to): two nodes finishing its
    /// last two parts at once may both see it whole.
    private func wholePushesFinished(_ pushes: [PushID: (total: Int?, parts: [Int: Int])], lanes: [RedisQueueLane]) async throws(PushQueueError) -> Set<PushID> {
        var whole = Set<PushID>(), announce: [PushID] = []
        var check: [(push: PushID, total: Int, answered: Int, others: [RedisQueueLane])] = []
        for (push, finished) in pushes {
            guard let total = finished.total else { whole.insert(push); continue }  // one part
            let answered = finished.parts.values.reduce(0, +)
            if answered >= total { announce.append(push); continue }  // every part finished in this batch
            check.append((push, total, answered, lanes.filter { finished.parts[$0.index] == nil }))
        }
        if !check.isEmpty {
            let commands = check.flatMap { c in c.others.map { RedisCommand("HMGET", "\($0.prefix):push:\(c.push)", "count", "sent", "failed") } }
            let replies = commands.isEmpty ? [] : try await redis { () async throws(RedisError) in try await client.pipeline(commands) }
            var at = 0
            for c in check {
                var answered = c.answered
                for reply in replies[at..<(at + c.others.count)] {
                    guard let f = reply.array?.map({ $0.string.flatMap { Int($0) } }), f.count == 3, f[0] != nil else { continue }
                    answered += (f[1] ?? 0) + (f[2] ?? 0)
                }
                at += c.others.count
                if answered >= c.total { announce.append(c.push) }
            }
        }
        guard !announce.isEmpty else { return whole }
        let keep = retentionMilliseconds
        let claims = announce.map { push in
            RedisCommand("SET", "\(lanes[RedisHashSlot.slot(of: push.rawValue) % lanes.count].prefix):announced:\(push)", "1", "NX", "PX", keep)
        }
        let answers = try await redis { () async throws(RedisError) in try await client.pipeline(claims) }
        for (push, answer) in zip(announce, answers) where answer.string == "OK" { whole.insert(push) }
        return whole
    }

    private func complete(_ results: [TargetCompletion], in lane: RedisQueueLane) async throws(PushQueueError) -> LaneCompletion {
        // Per push (in order of first appearance): its claim entries (an entry holds one push's
        // targets) with how many of the push's results each answered, its results grouped by
        // entry, and its delivery-log lines. `ordinals` maps the script's argument order back to
        // positions in `results`.
        var pushOrder: [PushID] = [], entriesOf: [PushID: [String]] = [:], positionsOf: [String: [Int]] = [:]
        for (position, result) in results.enumerated() {
            let c = result.claim
            if entriesOf[c.pushID] == nil { pushOrder.append(c.pushID) }
            if positionsOf[c.receipt] == nil { entriesOf[c.pushID, default: []].append(c.receipt) }
            positionsOf[c.receipt, default: []].append(position)
        }
        var arguments = [lane.prefix, lane.group, retentionMilliseconds, String(pushOrder.count)]
        arguments.reserveCapacity(arguments.count + 2 * results.count + 11 * pushOrder.count)
        var ordinals: [Int] = []
        ordinals.reserveCapacity(results.count)
        let sep = "\u{1f}"
        for push in pushOrder {
            let receipts = entriesOf[push] ?? []
            var fields: [String] = [], lines: [String] = [], invalid: [String] = [], entries: [String] = []
            var statuses = "", newest = 0.0, seen = Set<Int>(), unique = true
            for receipt in receipts {
                let positions = positionsOf[receipt] ?? []
                entries += [receipt, String(positions.count), Self.answeredMask(receipt: receipt, results: positions.map { results[$0].claim.index })]
                for position in positions {
                    let o = results[position].outcome, c = results[position].claim
                    let outcome = Self.encode(o), at = String(o.finishedAt.timeIntervalSince1970)
                    let index = String(c.index)
                    // The push id is the log entry's (`p`), the time the outcome's (finishedAt).
                    lines.append(index + sep + c.target.kind.rawValue + sep + (c.target.environment?.rawValue ?? "") + sep + c.target.value + sep + outcome)
                    if o.tokenInvalid {
                        // Its position (1…n) among the push's results in argument order.
                        invalid += [String(fields.count / 2 + 1), [c.target.kind.rawValue, c.target.value, o.reason ?? "invalid", at].joined(separator: sep)]
                    }
                    if !seen.insert(c.index).inserted { unique = false }
                    fields.append(index)
                    fields.append(outcome)
                    statuses += o.status == .sent ? "1" : "0"
                    newest = max(newest, o.finishedAt.timeIntervalSince1970)
                    ordinals.append(position)
                }
            }
            arguments += [push.rawValue, results[ordinals[ordinals.count - fields.count / 2]].claim.app, String(fields.count / 2), statuses,
                          lines.joined(separator: "\u{1e}"), String(newest), unique ? "1" : "0", String(invalid.count / 2),
                          String(receipts.count)]
            arguments += entries
            arguments += fields
            arguments += invalid
        }
        let reply = try await redis { () async throws(RedisError) in
            try await client.eval(RedisQueueScripts.complete, keys: [lane.stream], arguments: arguments)
        }
        guard let parts = reply.array, parts.count >= 3, let recorded = parts[0].integer, let duplicates = parts[1].integer,
              let positions = parts[2].array else {
            throw .storage("Redis answered the complete script with \(reply.shape)")
        }
        let ignored = positions.compactMap { $0.integer.map { ordinals[Int($0)] } }.sorted()
        // Per finished push: id, the lane's part count, the push's total ('' for one part).
        let tail = Array(parts.dropFirst(3))
        guard tail.count % 3 == 0 else { throw .storage("Redis answered the complete script with \(reply.shape)") }
        let finished = stride(from: 0, to: tail.count, by: 3).compactMap { k -> (push: PushID, count: Int, total: Int?)? in
            guard let id = tail[k].string else { return nil }
            return (PushID(rawValue: id), tail[k + 1].string.flatMap { Int($0) } ?? 0, tail[k + 2].string.flatMap { Int($0) })
        }
        return LaneCompletion(report: CompletionReport(recorded: Int(recorded), duplicates: Int(duplicates), ignoredPositions: ignored,
                                                       finishedPushes: Set(finished.map(\.push))),
                              finished: finished)
    }

    public func reschedule(_ retries: [TargetRetry]) async throws(PushQueueError) {
        guard !retries.isEmpty else { return }
        try checkOpen()
        let lanes = try lanesOrThrow()
        var byLane: [Int: [String]] = [:]
        for retry in retries {
            let c = retry.claim
            let (lane, receipt) = unwrap(c.receipt, in: lanes)
            byLane[lane.index, default: [lane.prefix, lane.group]] += [receipt, c.pushID.rawValue, String(c.index), c.app, String(retry.attempts),
                                                                      retry.lastError ?? "", String(retry.notBefore.timeIntervalSince1970)]
        }
        for (index, arguments) in byLane.sorted(by: { $0.key < $1.key }) {
            try await redis { () async throws(RedisError) in
                try await client.eval(RedisQueueScripts.reschedule, keys: [lanes[index].stream], arguments: arguments)
            }
        }
    }

    /// Extends the leases of the entries these claims hold (one per chunk), while this node
    /// still owns them: a lease taken over meanwhile stays the new owner's.
    public func renew(receipts: [String], lease: Duration) async throws(PushQueueError) {
        let receipts = Set(receipts)
        guard !receipts.isEmpty else { return }
        try checkOpen()
        let lanes = try lanesOrThrow()
        let leaseEnd = time.now.timeIntervalSince1970 + lease.seconds
        var byLane: [Int: [String]] = [:]
        for receipt in receipts.sorted() {
            let (lane, bare) = unwrap(receipt, in: lanes)
            byLane[lane.index, default: [lane.prefix, String(leaseEnd)]].append(bare)
        }
        for (index, arguments) in byLane.sorted(by: { $0.key < $1.key }) {
            try await redis { () async throws(RedisError) in
                try await client.eval(RedisQueueScripts.renew, keys: [lanes[index].stream], arguments: arguments)
            }
        }
    }

    /// Ends the leases of entries still pending for this node's consumer name (a node restarted
    /// under the same `--node` name); other nodes' abandoned entries are taken over when their
    /// leases end.
    @discardableResult
    public func recoverAbandoned() async throws(PushQueueError) -> Int {
        try checkOpen()
        try await prepare()
        var released = 0
        for lane in try lanesOrThrow() {
            let reply = try await redis { () async throws(RedisError) in
                try await client.eval(RedisQueueScripts.release, keys: [lane.stream], arguments: [lane.prefix, lane.group, stream.consumer])
            }
            released += Int(reply.integer ?? 0)
        }
        return released
    }

    public func depth() async throws(PushQueueError) -> QueueDepth {
        try checkOpen()
        let lanes = try lanesOrThrow()
        let commands = lanes.flatMap { lane in ["unfinished", "finished", "inflight"].map { RedisCommand("GET", "\(lane.prefix):\($0)") } }
        let replies = try await redis { () async throws(RedisError) in try await client.pipeline(commands) }
        var waiting = 0, claimed = 0, finished = 0
        for k in lanes.indices {
            let unfinished = Int(replies[3 * k].integer ?? 0), inflight = Int(replies[3 * k + 2].integer ?? 0)
            waiting += max(0, unfinished - inflight)
            claimed += inflight
            finished += Int(replies[3 * k + 1].integer ?? 0)
        }
        return QueueDepth(waiting: waiting, claimed: claimed, finished: finished)
    }

    public func status(of push: PushID, includeTargets: Bool) async throws(PushQueueError) -> PushStatus? {
        try checkOpen()
        let lanes = try lanesOrThrow()
        // The push's head in every lane (one pipeline): one lane holds it, or — a push spread
        // over a cluster's lanes — several hold a part each, whose counts add up.
        let heads = try await redis { () async throws(RedisError) in
            try await client.pipeline(lanes.map { RedisCommand("HMGET", "\($0.prefix):push:\(push)", "app", "accepted", "count", "sent", "failed", "total") })
        }
        var holding: [RedisQueueLane] = []
        var status: PushStatus?
        var total: Int?
        for (lane, reply) in zip(lanes, heads) {
            guard let head = reply.array?.map(\.string), head.count == 6, let app = head[0] else { continue }
            holding.append(lane)
            let count = Int(head[2] ?? "") ?? 0, sent = Int(head[3] ?? "") ?? 0, failed = Int(head[4] ?? "") ?? 0
            if let t = head[5].flatMap({ Int($0) }) { total = t }
            if status == nil {
                status = PushStatus(pushID: push, app: app, acceptedAt: Date(timeIntervalSince1970: Double(head[1] ?? "") ?? 0),
                                    targetCount: count, sent: sent, failed: failed, targets: [])
            } else {
                status?.targetCount += count
                status?.sent += sent
                status?.failed += failed
            }
        }
        guard var status else { return nil }
        // A part not written yet (its enqueue is under way) still counts.
        if let total { status.targetCount = total }
        guard includeTargets else { return status }
        let commands = holding.flatMap { lane in ["targets", "results", "retry", "claimed"].map { RedisCommand("HGETALL", "\(lane.prefix):\($0):\(push)") } }
        let replies = try await redis { () async throws(RedisError) in try await client.pipeline(commands) }
        for k in holding.indices {
            status.targets += Self.targetStates(stored: Self.hash(replies[4 * k]), results: Self.hash(replies[4 * k + 1]),
                                                retries: Self.hash(replies[4 * k + 2]), claimedEntries: Self.hash(replies[4 * k + 3]))
        }
        status.targets.sort { $0.index < $1.index }
        return status
    }

    /// The targets of a push (or of its part in one lane) from its hashes.
    private static func targetStates(stored: [String: String], results: [String: String], retries: [String: String],
                                     claimedEntries: [String: String]) -> [TargetState] {
        // Definitions: one field per target (index → definition), or per chunk (`cF` → the
        // chunk's definitions from target F on, joined by RS).
        var targets: [String: String] = [:]
        for (field, value) in stored {
            guard field.hasPrefix("c"), let first = Int(field.dropFirst()) else { targets[field] = value; continue }
            for (k, definition) in value.utf8.split(separator: 0x1E, omittingEmptySubsequences: false).enumerated() {
                targets[String(first + k)] = String(Substring(definition))
            }
        }
        // Claimed: each claimed entry lists its targets (or, a chunk handed out whole, its
        // first target and count: `F+K`); one rescheduled since waits elsewhere (its retry names
        // another place). A field that is a target's index is one claimed target, as pushlab
        // wrote them before chunks.
        var claimed = Set<String>()
        for (field, value) in claimedEntries {
            guard field.contains("-") else { claimed.insert(field); continue }
            let list = split(value).last ?? ""
            var indices = list.split(separator: ",").map(String.init)
            if let plus = list.firstIndex(of: "+"), let first = Int(list[..<plus]), let count = Int(list[list.index(after: plus)...]) {
                indices = (first..<first + max(0, count)).map(String.init)
            }
            for index in indices {
                let owner = retries[index].map(split).flatMap { $0.count > 2 ? $0[2] : nil }
                if owner == nil || owner == field { claimed.insert(index) }
            }
        }
        return targets.compactMap { index, definition -> TargetState? in
            guard let i = Int(index) else { return nil }
            let f = split(definition)
            let target = PushTarget(kind: PushTarget.Kind(rawValue: f[0]) ?? .apnsToken, value: f.count > 2 ? f[2] : "",
                                    environment: f.count > 1 ? APNsEnvironment(rawValue: f[1]) : nil)
            let retry = retries[index].map(split)
            if let outcome = results[index].flatMap(decode) {
                return TargetState(index: i, target: target, phase: outcome.status == .sent ? .sent : .failed, attempts: outcome.attempts,
                                   lastError: nil, outcome: outcome)
            }
            return TargetState(index: i, target: target, phase: claimed.contains(index) ? .claimed : .waiting,
                               attempts: Int(retry?.first ?? "") ?? 0, lastError: retry.flatMap { $0.count > 1 && !$0[1].isEmpty ? $0[1] : nil },
                               outcome: nil)
        }
    }

    public func deliveries(app: String, token: String?, since: Date?, limit: Int) async throws(PushQueueError) -> [DeliveryRecord] {
        try checkOpen()
        var out: [DeliveryRecord] = []
        for lane in try lanesOrThrow() {
        var taken = 0
        try await scanNewestFirst("\(lane.prefix):delivered:\(app)", since: since) { entry in
            // One entry per recorded batch of one push (`p`): its results, newest last, each
            // `i kind env value outcome`; written before 2026-12-06, each also carried the push
            // id first and the time last. (An entry with `o` is one result, as pushlab wrote them
            // before batches.)
            let lines = entry["o"].map { _ in [[entry["p"], entry["i"], entry["k"], entry["e"], entry["v"], entry["o"], entry["t"]]
                .map { $0 ?? "" }.joined(separator: "\u{1f}")[...]] }
                ?? (entry["b"] ?? "").split(separator: "\u{1e}", omittingEmptySubsequences: true)
            for line in lines.reversed() {
                var f = Self.split(String(line))
                if f.count == 5 { f.insert(entry["p"] ?? "", at: 0) }
                guard f.count >= 6 else { continue }
                if let token, f[4] != token { continue }
                guard let outcome = Self.decode(f[5]) else { continue }
                if let since, outcome.finishedAt < since { continue }
                out.append(DeliveryRecord(pushID: PushID(f[0]), index: Int(f[1]) ?? 0,
                                          target: PushTarget(kind: PushTarget.Kind(rawValue: f[2]) ?? .apnsToken, value: f[4],
                                                             environment: APNsEnvironment(rawValue: f[3])),
                                          outcome: outcome))
                taken += 1
                if taken >= limit { return false }
            }
            return true
        }
        }
        // Each lane gave its newest `limit`; the newest `limit` of them all.
        return Array(out.sorted { $0.outcome.finishedAt > $1.outcome.finishedAt }.prefix(limit))
    }

    public func invalidTokens(app: String, since: Date?, limit: Int) async throws(PushQueueError) -> [InvalidToken] {
        try checkOpen()
        var out: [InvalidToken] = []
        let lanes = try lanesOrThrow()
        for lane in lanes {
            var taken = 0
            try await scanNewestFirst("\(lane.prefix):invalid:\(app)", since: since) { entry in
                let at = Date(timeIntervalSince1970: Double(entry["t"] ?? "") ?? 0)
                if let since, at < since { return true }
                out.append(InvalidToken(token: entry["v"] ?? "", kind: PushTarget.Kind(rawValue: entry["k"] ?? "") ?? .apnsToken,
                                        reason: entry["r"] ?? "", pushID: PushID(entry["p"] ?? ""), reportedAt: at))
                taken += 1
                return taken < limit
            }
        }
        // One lane: its order as stored (newest first); several: the newest `limit` of them all.
        return lanes.count == 1 ? out : Array(out.sorted { $0.reportedAt > $1.reportedAt }.prefix(limit))
    }

    /// Walks `key` from its newest entry back, page by page, while `visit` says go on and the
    /// entries are not older than `since` by more than a minute (results of several nodes
    /// arrive a little out of order).
    private func scanNewestFirst(_ key: String, since: Date?, visit: (RedisStreamEntry) -> Bool) async throws(PushQueueError) {
        var end = "+"
        let floor = since.map { $0.timeIntervalSince1970 - 60 }
        while true {
            let reply = try await redis { () async throws(RedisError) in
                try await client.execute(RedisCommand("XREVRANGE", key, end, "-", "COUNT", "1000"))
            }
            let entries = (reply.array ?? []).compactMap(RedisStreamEntry.init(reply:))
            for entry in entries {
                if let floor, let t = entry["t"].flatMap(Double.init), t < floor { return }
                if !visit(entry) { return }
            }
            guard entries.count == 1000, let last = entries.last else { return }
            end = "(" + last.id
        }
    }

    public func nextReadyDate() async throws(PushQueueError) -> Date? {
        try checkOpen()
        let commands = try lanesOrThrow().flatMap { lane in
            ["delayed", "leases"].map { RedisCommand("ZRANGE", "\(lane.prefix):\($0)", "0", "0", "WITHSCORES") }
        }
        let replies = try await redis { () async throws(RedisError) in try await client.pipeline(commands) }
        let times = replies.compactMap { $0.array.flatMap { $0.count == 2 ? $0[1].string.flatMap(Double.init) : nil } }
        return times.min().map { Date(timeIntervalSince1970: $0) }
    }

    public func close() async {
        closed.withLock { $0 = true }
        client.close()
        reader.close()
    }

    // MARK: - Cluster status

    /// Writes this node's heartbeat (`P:nodes`: name → "unix-seconds started-seconds").
    public func heartbeat(node: String, startedAt: Date) async throws(PushQueueError) {
        let now = time.now.timeIntervalSince1970
        try await redis { () async throws(RedisError) in
            try await client.execute(RedisCommand("HSET", "\(sharedPrefix):nodes", node, "\(now) \(startedAt.timeIntervalSince1970)"))
        }
    }

    /// Nodes by last heartbeat, the queue's depth, pending entries per consumer, dead letters;
    /// on a cluster also each master with its slots and lanes.
    public func clusterStatus(deadLetterSample: Int = 10) async throws(PushQueueError) -> RedisClusterStatus {
        let depth = try await depth()
        let lanes = try lanesOrThrow()
        var commands = [RedisCommand("HGETALL", "\(sharedPrefix):nodes")]
        for lane in lanes {
            commands += [RedisCommand("XPENDING", lane.stream, lane.group), RedisCommand("XLEN", lane.deadLetters),
                         RedisCommand("XREVRANGE", lane.deadLetters, "+", "-", "COUNT", String(deadLetterSample)),
                         RedisCommand("ZCARD", "\(lane.prefix):delayed"), RedisCommand("XLEN", lane.stream)]
        }
        let replies = try await redis { () async throws(RedisError) in try await client.pipeline(commands) }
        let shards = try await redis { () async throws(RedisError) in try await client.shards() }
        let now = time.now.timeIntervalSince1970
        let nodes = Self.hash(replies[0]).map { name, value -> RedisClusterStatus.Node in
            let parts = value.split(separator: " ").compactMap { Double($0) }
            return RedisClusterStatus.Node(name: name, lastHeartbeat: Date(timeIntervalSince1970: parts.first ?? 0),
                                           startedAt: Date(timeIntervalSince1970: parts.count > 1 ? parts[1] : 0),
                                           secondsSinceHeartbeat: max(0, now - (parts.first ?? 0)))
        }.sorted { $0.name < $1.name }
        var pending: [String: Int] = [:], deadCount = 0, retryWaiting = 0
        var dead: [RedisClusterStatus.DeadLetter] = []
        var laneStatus: [RedisClusterStatus.Lane] = []
        for (k, lane) in lanes.enumerated() {
            let base = 1 + 5 * k
            var lanePending = 0
            if let summary = replies[base].array, summary.count == 4 {
                lanePending = Int(summary[0].integer ?? 0)
                for consumer in summary[3].array ?? [] {
                    if let pair = consumer.array, pair.count == 2, let name = pair[0].string, let n = pair[1].integer { pending[name, default: 0] += Int(n) }
                }
            }
            deadCount += Int(replies[base + 1].integer ?? 0)
            dead += (replies[base + 2].array ?? []).compactMap(RedisStreamEntry.init(reply:)).map { entry in
                RedisClusterStatus.DeadLetter(pushID: PushID(entry["p"] ?? ""), index: Int(entry["i"] ?? "") ?? 0, app: entry["a"] ?? "",
                                              deliveries: Int(entry["deliveries"] ?? "") ?? 0, deadBy: entry["dead-by"] ?? "")
            }
            retryWaiting += Int(replies[base + 3].integer ?? 0)
            let slot = RedisHashSlot.slot(of: lane.stream)
            let master = shards?.first { $0.slots.contains { $0.contains(slot) } }?.address
            laneStatus.append(RedisClusterStatus.Lane(stream: lane.stream, slot: slot, master: master,
                                                      entries: Int(replies[base + 4].integer ?? 0), pending: lanePending))
        }
        return RedisClusterStatus(redis: location, depth: depth, retryWaiting: retryWaiting,
                                  nodes: nodes, pendingByConsumer: pending,
                                  deadLetterCount: deadCount, recentDeadLetters: Array(dead.prefix(deadLetterSample)),
                                  shards: shards, lanes: laneStatus, redirections: client.clusterCounters)
    }

    // MARK: - Helpers

    private func checkOpen() throws(PushQueueError) {
        if closed.withLock({ $0 }) { throw .closed }
    }

    @discardableResult
    private func redis<T>(_ body: () async throws(RedisError) -> T) async throws(PushQueueError) -> T {
        do {
            return try await body()
        } catch .closed {
            throw .closed
        } catch {
            throw .storage("\(location): \(error)")
        }
    }

    static func hash(_ reply: RedisReply) -> [String: String] {
        var out: [String: String] = [:]
        let flat = reply.array ?? []
        var index = 0
        while index + 1 < flat.count {
            if let key = flat[index].string { out[key] = flat[index + 1].string ?? "" }
            index += 2
        }
        return out
    }

    /// The fields of a value joined by the unit separator (U+001F), empty ones kept. Split on
    /// the UTF-8 bytes: a control character always ends a grapheme, so this is the same split as
    /// by Characters, without their segmentation (which took 5% of the relay's CPU in claims).
    static func split(_ value: String) -> [String] { split(value[...]) }

    static func split(_ value: Substring) -> [String] {
        value.utf8.split(separator: 0x1F, omittingEmptySubsequences: false).map { String(Substring($0)) }
    }

    /// For a receipt of a chunk handed out whole (`entry SEP token SEP f`: its open targets are a
    /// bitmap in Redis), which of its targets these results answer: '1' at j for target f+j;
    /// '' for a receipt whose open targets are a set.
    static func answeredMask(receipt: String, results indices: [Int]) -> String {
        let parts = split(receipt)
        guard parts.count > 2, let first = Int(parts[2]) else { return "" }
        var mask = [UInt8]()
        for index in indices where index >= first && index - first < 1 << 16 {
            let j = index - first
            if mask.count <= j { mask += [UInt8](repeating: 0x30, count: j + 1 - mask.count) }
            mask[j] = 0x31
        }
        return String(decoding: mask, as: UTF8.self)
    }

    /// The outcome as stored in Redis (its done marker and its delivery-log line): a JSON array
    /// `[status (1 sent, 0 failed), attempts, finishedAt (seconds since 1970), httpStatus or
    /// null, providerID or null]`, then `reason` when there is one or the token is invalid, then
    /// `1` when it is — less than half the bytes of the object with its keys, and every byte
    /// of a result is parsed, hashed and written (AOF) by Redis twice (issue 37). Written by hand,
    /// one per result on the record path (`JSONEncoder` took about 3 µs of the relay's CPU per
    /// result). `decode` reads it, and the object pushlab stored before 2026-12-06 (and the
    /// scripts' own dead-letter results).
    static func encode(_ outcome: TargetOutcome) -> String {
        var s = (outcome.status == .sent ? "[1," : "[0,") + String(outcome.attempts) + "," + seconds(outcome.finishedAt)
        s += "," + (outcome.httpStatus.map { String($0) } ?? "null") + "," + (outcome.providerID.map(JSONValue.quoted) ?? "null")
        if outcome.reason != nil || outcome.tokenInvalid { s += "," + (outcome.reason.map(JSONValue.quoted) ?? "null") }
        if outcome.tokenInvalid { s += ",1" }
        return s + "]"
    }

    /// A date as JSON seconds since 1970: the shortest text that reads back as the same Double.
    private static func seconds(_ date: Date) -> String {
        let t = date.timeIntervalSince1970
        guard t.isFinite else { return "0" }
        if t == t.rounded(), abs(t) < 9_007_199_254_740_992 { return String(Int64(t)) }
        return String(t)  // Swift's shortest form that reads back as `t` (an exponent is valid JSON)
    }

    static func decode(_ json: String) -> TargetOutcome? {
        if json.utf8.first == UInt8(ascii: "[") {
            guard let a = (try? JSONDocument.parse(Array(json.utf8)))?.root.arrayValue, a.count >= 5,
                  let status = a[0].numberValue?.intValue, let attempts = a[1].numberValue?.intValue, let at = a[2].numberValue else { return nil }
            return TargetOutcome(status: status == 1 ? .sent : .failed, httpStatus: a[3].numberValue?.intValue,
                                 reason: a.count > 5 ? a[5].stringValue : nil, providerID: a[4].stringValue,
                                 tokenInvalid: a.count > 6 && a[6].numberValue?.intValue == 1, attempts: attempts,
                                 finishedAt: Date(timeIntervalSince1970: at.doubleValue))
        }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return try? decoder.decode(TargetOutcome.self, from: Data(json.utf8))
    }
}

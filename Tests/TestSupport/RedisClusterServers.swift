import Foundation

/// A real 3-master Redis Cluster on loopback for one test: three `redis-server`s
/// (`RedisServer`: own free port, own temp directory, AOF with `appendfsync always`) with
/// `--cluster-enabled yes`, joined by `redis-cli --cluster create … --cluster-replicas 0`, and
/// ready once every node reports `cluster_state:ok`. Each node's cluster bus gets a free port of
/// its own (`--cluster-port`; the default, port + 10000, may not exist for a high port).
/// `cluster-require-full-coverage no`: with no replicas, the other masters keep answering
/// their slots while one is down (what docs/redis.md recommends).
/// Stopped (every server, their temp directories removed) when released.
public final class RedisClusterServers: @unchecked Sendable {
    public let nodes: [RedisServer]

    /// `redis-cluster://127.0.0.1:P1,127.0.0.1:P2,127.0.0.1:P3`.
    public var url: String { "redis-cluster://" + nodes.map { "127.0.0.1:\($0.port)" }.joined(separator: ",") }

    public init(masters: Int = 3) throws {
        var nodes: [RedisServer] = []
        for _ in 0..<masters {
            nodes.append(try RedisServer(arguments: ["--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
                                                     "--cluster-port", String(try RedisServer.freePort()),
                                                     "--cluster-node-timeout", "5000", "--cluster-require-full-coverage", "no"]))
        }
        self.nodes = nodes
        let result = try ProcessRunner.run("/usr/bin/redis-cli",
                                           ["--cluster", "create"] + nodes.map { "127.0.0.1:\($0.port)" } + ["--cluster-replicas", "0", "--cluster-yes"],
                                           timeout: 60)
        guard result.status == 0 else {
            throw RedisServerError(message: "redis-cli --cluster create failed (\(result.status)): \(result.stdout.suffix(400)) \(result.stderr.suffix(400))")
        }
        try waitUntilOK()
    }

    /// Waits (up to 30 s) until every running node says `cluster_state:ok` and knows all masters.
    public func waitUntilOK() throws {
        let ok = Poll.blocking(timeout: 30) {
            nodes.allSatisfy { node in
                guard let info = try? node.cli(["CLUSTER", "INFO"]) else { return false }
                return info.contains("cluster_state:ok") && info.contains("cluster_known_nodes:\(nodes.count)")
                    && info.contains("cluster_slots_assigned:16384")
            }
        }
        guard ok else { throw RedisServerError(message: "the Redis Cluster did not reach cluster_state:ok in 30 s") }
    }

    /// The node serving `slot` (by `CLUSTER SLOTS` of the first node that answers).
    public func master(ofSlot slot: Int) throws -> RedisServer {
        for node in nodes {
            // CLUSTER NODES: "<id> <ip:port@bus> <flags> <master> <ping> <pong> <epoch> <link> <slot ranges…>"
            guard let table = try? node.cli(["CLUSTER", "NODES"]) else { continue }
            for line in table.split(separator: "\n") {
                let fields = line.split(separator: " ")
                guard fields.count >= 8, fields[2].contains("master") else { continue }
                for range in fields.dropFirst(8) where !range.hasPrefix("[") {
                    let bounds = range.split(separator: "-").compactMap { Int($0) }
                    guard let low = bounds.first else { continue }
                    if (low...(bounds.last ?? low)).contains(slot) {
                        let port = Int(fields[1].split(separator: "@")[0].split(separator: ":").last ?? "") ?? 0
                        if let server = nodes.first(where: { $0.port == port }) { return server }
                    }
                }
            }
        }
        throw RedisServerError(message: "no master serves slot \(slot)")
    }

    /// The node's cluster id (`CLUSTER MYID`).
    public func id(of node: RedisServer) throws -> String { try node.cli(["CLUSTER", "MYID"]) }

    /// A slot migration under way: IMPORTING on the target, MIGRATING on the source, some keys moved.
    public struct SlotMove {
        public var slot: Int
        public var source: RedisServer
        public var target: RedisServer
        var targetID: String
        var rest: [String]
    }

    /// Starts moving `slot` from its master to `target`, the way `redis-cli --cluster reshard`
    /// does: IMPORTING on the target, MIGRATING on the source, then `MIGRATE` of the first
    /// `keysFirst` keys. Until `finish`, the source answers `-ASK` for the moved keys.
    public func startMoving(_ slot: Int, to target: RedisServer, keysFirst: Int = .max) throws -> SlotMove {
        let source = try master(ofSlot: slot)
        guard source.port != target.port else { throw RedisServerError(message: "slot \(slot) is already on \(target.port)") }
        let sourceID = try id(of: source), targetID = try id(of: target)
        try target.cli(["CLUSTER", "SETSLOT", String(slot), "IMPORTING", sourceID])
        try source.cli(["CLUSTER", "SETSLOT", String(slot), "MIGRATING", targetID])
        let keys = try source.cli(["CLUSTER", "GETKEYSINSLOT", String(slot), "100000"]).split(separator: "\n").map(String.init)
            .filter { !$0.isEmpty }
        let move = SlotMove(slot: slot, source: source, target: target, targetID: targetID, rest: Array(keys.dropFirst(min(keysFirst, keys.count))))
        try migrate(Array(keys.prefix(keysFirst)), from: source, to: target)
        return move
    }

    /// Moves the rest of the keys and gives the slot to the target on every node
    /// (`SETSLOT … NODE`): from now on the source answers `-MOVED`.
    public func finish(_ move: SlotMove) throws {
        try migrate(move.rest, from: move.source, to: move.target)
        for node in nodes { try node.cli(["CLUSTER", "SETSLOT", String(move.slot), "NODE", move.targetID]) }
    }

    /// Moves `slot` with all its keys to `target`.
    public func moveSlot(_ slot: Int, to target: RedisServer) throws {
        try finish(try startMoving(slot, to: target))
    }

    private func migrate(_ keys: [String], from source: RedisServer, to target: RedisServer) throws {
        for start in stride(from: 0, to: keys.count, by: 500) {
            let batch = Array(keys[start..<min(keys.count, start + 500)])
            let out = try source.cli(["MIGRATE", "127.0.0.1", String(target.port), "", "0", "10000", "KEYS"] + batch)
            guard out.contains("OK") || out.contains("NOKEY") else { throw RedisServerError(message: "MIGRATE: \(out)") }
        }
    }

    /// `redis-cli -c` (follows MOVED/ASK) through the first node that answers.
    @discardableResult
    public func cli(_ arguments: [String]) throws -> String {
        var lastError: Error = RedisServerError(message: "no node answered")
        for node in nodes {
            do {
                let result = try ProcessRunner.run("/usr/bin/redis-cli", ["-c", "-p", String(node.port)] + arguments, timeout: 10)
                guard result.status == 0 else { throw RedisServerError(message: "redis-cli \(arguments.first ?? ""): \(result.stderr)") }
                return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            } catch { lastError = error }
        }
        throw lastError
    }

    /// Stops every node.
    public func stop() {
        for node in nodes { node.stop() }
    }

    deinit { stop() }
}

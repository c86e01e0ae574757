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

    /// Moves `slot` with every key in it from its master to `target`, the way `redis-cli
    /// --cluster reshard` does: IMPORTING on the target, MIGRATING on the source, `MIGRATE`
    /// the keys, then `SETSLOT … NODE` everywhere. `between` runs after the first `keysFirst`
    /// keys moved and before the rest (a client then meets `-ASK` for the moved keys).
    public func moveSlot(_ slot: Int, to target: RedisServer, keysFirst: Int = .max, between: () throws -> Void = {}) throws {
        let source = try master(ofSlot: slot)
        guard source.port != target.port else { return }
        let sourceID = try id(of: source), targetID = try id(of: target)
        try target.cli(["CLUSTER", "SETSLOT", String(slot), "IMPORTING", sourceID])
        try source.cli(["CLUSTER", "SETSLOT", String(slot), "MIGRATING", targetID])
        let keys = try source.cli(["CLUSTER", "GETKEYSINSLOT", String(slot), "100000"]).split(separator: "\n").map(String.init)
            .filter { !$0.isEmpty }
        func migrate(_ batch: ArraySlice<String>) throws {
            guard !batch.isEmpty else { return }
            let out = try source.cli(["MIGRATE", "127.0.0.1", String(target.port), "", "0", "10000", "KEYS"] + batch)
            guard out.contains("OK") || out.contains("NOKEY") else { throw RedisServerError(message: "MIGRATE: \(out)") }
        }
        try migrate(keys.prefix(keysFirst))
        try between()
        try migrate(keys.dropFirst(min(keysFirst, keys.count)))
        for node in nodes { try node.cli(["CLUSTER", "SETSLOT", String(slot), "NODE", targetID]) }
    }

    /// Stops every node.
    public func stop() {
        for node in nodes { node.stop() }
    }

    deinit { stop() }
}

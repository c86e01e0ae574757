import Foundation
import PushCore
import PushHTTP

/// `GET /v1/cluster` (admin key) and the cluster part of `/metrics`: the nodes sharing the
/// Redis queue by heartbeat, the queue's depth, entries pending per consumer, dead letters.
extension RelayRoutes {
    /// A node whose last heartbeat is older than this shows as `"alive": false`.
    static let heartbeatStale: Double = 10

    /// Behind `RelayAuth(.admin)`.
    func cluster(_ request: ServerRequest) async throws -> ServerResponse {
        guard let redis = service.cluster else {
            throw APIError(404, "no_cluster", field: "path", "this relay runs the embedded SQLite queue, a single node",
                           fix: "start every node with 'pushlab relay --queue redis://HOST:PORT' (or redis-cluster://HOST:PORT,…) to run several (docs/relay.md \"Running several nodes\")")
        }
        let status = try await read { try await redis.clusterStatus(deadLetterSample: 10) }
        let nodes: [JSONValue] = status.nodes.map { node in
            RelayJSON.object([("name", .string(node.name)), ("alive", .bool(node.secondsSinceHeartbeat <= Self.heartbeatStale)),
                              ("last_heartbeat", RelayJSON.time(node.lastHeartbeat)), ("started_at", RelayJSON.time(node.startedAt)),
                              ("pending", RelayJSON.number(status.pendingByConsumer[node.name] ?? 0)),
                              ("this_node", node.name == service.node ? .bool(true) : nil)])
        }
        let consumers = status.pendingByConsumer.sorted { $0.key < $1.key }.map { ($0.key, RelayJSON.number($0.value)) }
        let body = RelayJSON.object([
            ("redis", .string(status.redis)),
            ("node", .string(service.node)),
            ("queue", RelayJSON.object([("waiting", RelayJSON.number(status.depth.waiting)), ("retry_waiting", RelayJSON.number(status.retryWaiting)),
                                        ("claimed", RelayJSON.number(status.depth.claimed)), ("finished", RelayJSON.number(status.depth.finished)),
                                        ("capacity", RelayJSON.number(service.config.queue.capacity))])),
            ("nodes", .array(JSONArray(nodes))),
            ("lanes", .array(JSONArray(status.lanes.map { lane in
                RelayJSON.object([("stream", .string(lane.stream)), ("slot", RelayJSON.number(lane.slot)),
                                  ("master", lane.master.map { .string($0) }), ("entries", RelayJSON.number(lane.entries)),
                                  ("pending", RelayJSON.number(lane.pending))])
            }))),
            ("shards", status.shards.map { shards in
                .array(JSONArray(shards.map { shard in
                    RelayJSON.object([("master", .string(shard.address)),
                                      ("slots", .array(JSONArray(shard.slots.map { .string("\($0.lowerBound)-\($0.upperBound)") }))),
                                      ("lanes", .array(JSONArray(status.lanes.filter { $0.master == shard.address }.map { .string($0.stream) })))])
                }))
            }),
            ("redirections", status.redirections.map { r in
                RelayJSON.object([("moved", RelayJSON.number(r.moved)), ("ask", RelayJSON.number(r.ask)),
                                  ("slot_map_reads", RelayJSON.number(r.refreshes))])
            }),
            ("pending_by_consumer", RelayJSON.object(consumers)),
            ("dead_letters", RelayJSON.object([
                ("count", RelayJSON.number(status.deadLetterCount)),
                ("recent", .array(JSONArray(status.recentDeadLetters.map { d in
                    RelayJSON.object([("push_id", .string(d.pushID.rawValue)), ("index", RelayJSON.number(d.index)), ("app", .string(d.app)),
                                      ("deliveries", RelayJSON.number(d.deliveries)), ("dead_by", .string(d.deadBy))])
                }))),
            ])),
        ])
        return .json(200, body.prettyPrinted() + "\n")
    }

    /// The cluster gauges for `/metrics`; empty on SQLite or when Redis does not answer.
    func clusterMetrics() async -> String {
        guard let redis = service.cluster, let status = try? await redis.clusterStatus(deadLetterSample: 0) else { return "" }
        var out = "# HELP pushlab_relay_cluster_nodes Relay nodes sharing the Redis queue, by heartbeat state.\n# TYPE pushlab_relay_cluster_nodes gauge\n"
        let alive = status.nodes.count { $0.secondsSinceHeartbeat <= Self.heartbeatStale }
        out += "pushlab_relay_cluster_nodes{state=\"alive\"} \(alive)\npushlab_relay_cluster_nodes{state=\"stale\"} \(status.nodes.count - alive)\n"
        out += "# HELP pushlab_relay_cluster_pending Stream entries delivered to a consumer and not yet acknowledged.\n# TYPE pushlab_relay_cluster_pending gauge\n"
        for (consumer, n) in status.pendingByConsumer.sorted(by: { $0.key < $1.key }) {
            out += "pushlab_relay_cluster_pending{consumer=\"\(RelayMetrics.escape(consumer))\"} \(n)\n"
        }
        out += "# HELP pushlab_relay_dead_letters Entries moved to the dead-letter stream (delivered too often).\n# TYPE pushlab_relay_dead_letters gauge\n"
        out += "pushlab_relay_dead_letters \(status.deadLetterCount)\n"
        return out
    }
}

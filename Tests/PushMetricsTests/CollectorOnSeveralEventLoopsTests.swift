import Foundation
import PushCore
import PushHTTP
import PushMetrics
import Synchronization
import TestSupport
import XCTest

/// The collector on a server with two event loops (`pushlab collector` runs one per core by
/// default): handlers on both loop threads hand metrics to the one writer at the same time. Every
/// 2xx is stored, and each (delivery id, metric) is stored exactly once as new however the
/// requests repeating it are spread over the loops — the duplicate flags are decided at hand-over,
/// under the writer's lock, in the order the handlers got there.
final class CollectorOnSeveralEventLoopsTests: XCTestCase {
    private static let key = "loops-key"

    private static func track(_ id: String) -> [UInt8] {
        Array(#"{"anonymousId":"a","event":"Report Delivery Event","properties":{"recipient":"tok-1","metric":"delivered","deliveryId":"\#(id)"}}"#.utf8)
    }

    func testTwoLoopsStoreEveryAnsweredMetricAndFlagEachRepeatOnce() async throws {
        for acknowledgement in CollectorAcknowledgement.allCases {
            try await checkTwoLoops(acknowledgement)
        }
    }

    private func checkTwoLoops(_ acknowledgement: CollectorAcknowledgement) async throws {
        let directory = Fixtures.temporaryDirectory("collector-loops")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("metrics.sqlite").path
        let collector = try MetricsCollector(
            configuration: CollectorConfiguration(credentials: CollectorCredentials(cdpAPIKeys: [Self.key]), acknowledgement: acknowledgement),
            store: try MetricStore(path: path))
        // The collector's own handler, behind a route that notes which thread ran it.
        let threads = Mutex(Set<UInt>())
        var router = Router()
        router.add("POST", CIOMetricRoute.track.path) { request in
            threads.withLock { _ = $0.insert(UInt(pthread_self())) }
            return collector.handle(request, route: .track)
        }
        let server = HTTPServer(configuration: HTTPServerConfiguration(cleartextPort: 0, eventLoops: 2), router: router)
        try server.start()
        let base = "http://127.0.0.1:\(try XCTUnwrap(server.cleartextPort))"

        // 4 connections (handed to the loops in turn) × 8 concurrent senders × 10 requests, over
        // 16 delivery ids: every id is repeated from both loops.
        let clients = try (0..<4).map { _ in
            try HTTPClient(configuration: HTTPClientConfiguration(protocolMode: .h2cPriorKnowledge, requestTimeout: .seconds(30)))
        }
        let authorization = CollectorCredentials.basicHeader(user: Self.key)
        let answers = await withTaskGroup(of: [(Int, Int)].self) { group in
            for (c, client) in clients.enumerated() {
                for s in 0..<8 {
                    group.addTask {
                        var got: [(Int, Int)] = []
                        for n in 0..<10 {
                            let request = HTTPRequest(method: "POST", url: base + CIOMetricRoute.track.path,
                                                      headers: ["authorization": authorization, "content-type": "application/json"],
                                                      body: Self.track("loop-\((c * 8 + s + n) % 16)"))
                            guard let response = try? await client.send(request) else { got.append((0, 0)); continue }
                            let json = (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any]
                            got.append((response.status, json?["duplicates"] as? Int ?? -1))
                        }
                        return got
                    }
                }
            }
            return await group.reduce(into: []) { $0 += $1 }
        }
        for client in clients { await client.shutdown() }
        await server.stop()
        collector.flush()

        let label = acknowledgement.rawValue
        XCTAssertEqual(answers.count, 320, label)
        XCTAssertEqual(answers.filter { $0.0 != 200 }.map(\.0), [], "\(label): statuses other than 200")
        XCTAssertEqual(answers.reduce(0) { $0 + $1.1 }, 320 - 16, "\(label): duplicates answered over all requests")
        XCTAssertEqual(threads.withLock { $0.count }, 2, "\(label): the handlers ran on both loops")
        let sqlite = { (sql: String) throws -> [String] in
            try ProcessRunner.run("/usr/bin/sqlite3", [path, sql]).stdout.split(separator: "\n").map(String.init)
        }
        XCTAssertEqual(try sqlite("SELECT COUNT(*) FROM metric_requests WHERE status = 200"), ["320"], label)
        XCTAssertEqual(try sqlite("SELECT COUNT(*) FROM metrics"), ["320"], label)
        // Exactly one new row per id, and it is that id's first row.
        XCTAssertEqual(try sqlite("SELECT COUNT(DISTINCT delivery_id), SUM(duplicate = 0) FROM metrics"), ["16|16"], label)
        XCTAssertEqual(try sqlite("""
            SELECT COUNT(*) FROM metrics m WHERE duplicate = 0
              AND id = (SELECT MIN(id) FROM metrics WHERE delivery_id = m.delivery_id)
            """), ["16"], label)
    }
}

import PushCore
import PushMetrics
import PushStore
import TestSupport
import XCTest

/// The report's counts and rates on a hand-built dataset whose answers are worked out below.
///
/// Sent (gateway, status 200): d1 d2 d3 d4 d5. Rejected by the gateway: d6. Not sent: d9.
/// d1 delivered live (/v1/track), opened (/v1/b)       → delivered, opened
/// d2 delivered live twice (/v1/track)                   → delivered, 1 duplicate
/// d3 delivered via /v1/b (recovery), opened (/v1/b)     → recovered, opened
/// d4 nothing                                            → lost
/// d5 legacy delivered, timestamp 2 h before arrival     → recovered (threshold 60 s)
/// d9 delivered live but never sent                      → not sent
final class MetricsReportNumbersTests: XCTestCase {
    let t0 = Date(timeIntervalSince1970: 1_775_126_768)

    private func dataset() -> [MetricRequestRecord] {
        func r(_ at: TimeInterval, _ route: CIOMetricRoute, _ id: String, _ metric: CIOMetric, original: TimeInterval? = nil,
               duplicate: Bool = false) -> MetricRequestRecord {
            let m = ReportedMetric(route: route, deliveryID: id, metric: metric, recipient: "tok-\(id)",
                                   originalTimestamp: original.map { t0 + $0 })
            return MetricRequestRecord(receivedAt: t0 + at, route: route, status: 200, body: Array("{}".utf8), metrics: [(m, isDuplicate: duplicate)])
        }
        return [
            r(0, .track, "d1", .delivered),
            r(1, .track, "d2", .delivered),
            r(2, .track, "d2", .delivered, duplicate: true),
            r(5, .track, "d9", .delivered),
            r(10, .batch, "d1", .opened, original: 9),
            r(7200, .batch, "d3", .delivered, original: 3),
            r(7201, .batch, "d3", .opened, original: 7000),
            r(7300, .legacyEvents, "d5", .delivered, original: 100),
            MetricRequestRecord(receivedAt: t0 + 7400, route: .track, status: 401, error: "unknown_credentials", body: []),
        ]
    }

    private func gatewayDatabase(in dir: URL) throws -> String {
        let path = dir.appendingPathComponent("gateway.sqlite").path
        let db = try SQLiteDatabase(path: path)
        // The gateway's `pushes` table, as docs/metrics.md documents it.
        try db.execute("""
            CREATE TABLE pushes (id INTEGER PRIMARY KEY, received_at REAL NOT NULL, service TEXT NOT NULL, token TEXT, device TEXT,
              topic TEXT, push_type TEXT, message_id TEXT, status INTEGER NOT NULL, reason TEXT, delivery_id TEXT,
              headers TEXT NOT NULL, payload TEXT NOT NULL)
            """)
        for (id, status) in [("d1", 200), ("d2", 200), ("d3", 200), ("d4", 200), ("d5", 200), ("d6", 400)] {
            try db.run("INSERT INTO pushes (received_at, service, token, status, delivery_id, headers, payload) VALUES (?,?,?,?,?,?,?)",
                       [.real(t0.timeIntervalSince1970 - 1), "apns", .text("tok-\(id)"), .integer(Int64(status)), .text(id), "{}", "{}"])
        }
        try db.run("INSERT INTO pushes (received_at, service, token, status, delivery_id, headers, payload) VALUES (?,?,?,?,?,?,?)",
                   [.real(t0.timeIntervalSince1970), "fcm", "tok-x", 200, .null, "{}", "{}"])
        db.close()
        return path
    }

    private func report() throws -> MetricsReport {
        let dir = Fixtures.temporaryDirectory("report")
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try MetricStore(path: dir.appendingPathComponent("metrics.sqlite").path)
        try store.insert(dataset())
        return try MetricsReport.load(store: store, gatewayDatabasePath: try gatewayDatabase(in: dir), recoveryThresholdSeconds: 60)
    }

    func testTotals() throws {
        let t = try report().totals
        XCTAssertEqual(t.sent, 5)
        XCTAssertEqual(t.metricsReceived, 8)
        XCTAssertEqual(t.delivered, 5)
        XCTAssertEqual(t.deliveredLive, 3)
        XCTAssertEqual(t.recoveredAtLaunch, 2)
        XCTAssertEqual(t.opened, 2)
        XCTAssertEqual(t.lost, 1)
        XCTAssertEqual(t.duplicates, 1)
        XCTAssertEqual(t.duplicatedDeliveries, 1)
        XCTAssertEqual(t.notSent, 1)
        XCTAssertEqual(t.deliveryRate!, 0.8, accuracy: 1e-9)   // d1 d2 d3 d5 of 5 sent
        XCTAssertEqual(t.openRate!, 0.4, accuracy: 1e-9)       // 2 opened of 5 delivered
        XCTAssertEqual(t.recoveredShare!, 0.4, accuracy: 1e-9) // 2 of 5 delivered
        XCTAssertEqual(t.lostShare!, 0.2, accuracy: 1e-9)      // d4 of 5 sent
        XCTAssertEqual(t.duplicateShare!, 1.0 / 7.0, accuracy: 1e-9)
    }

    func testByRouteAttributesEachDeliveryToItsFirstRoute() throws {
        let rows = try report().byRoute
        XCTAssertEqual(rows.map(\.group), ["/v1/track", "/v1/b", "/push/events"])
        XCTAssertEqual(rows.map(\.sdkMode), ["cio-4 NSE", "cio-4 pipeline", "legacy"])
        XCTAssertEqual(rows.map(\.metricsReceived), [4, 3, 1])
        XCTAssertEqual(rows.map(\.delivered), [3, 1, 1])
        XCTAssertEqual(rows.map(\.recoveredAtLaunch), [0, 1, 1])
        XCTAssertEqual(rows.map(\.opened), [0, 2, 0])
        XCTAssertEqual(rows.map(\.duplicates), [1, 0, 0])
        XCTAssertEqual(rows[0].deliveryRate!, 0.4, accuracy: 1e-9)  // d1 d2 of 5 sent (d9 was not sent)
    }

    func testBySDKGroupsTheTwoCDPRoutes() throws {
        let rows = try report().bySDK
        XCTAssertEqual(rows.map(\.group), ["cio-4", "legacy"])
        XCTAssertEqual(rows.map(\.delivered), [4, 1])
        XCTAssertEqual(rows.map(\.recoveredAtLaunch), [1, 1])
        XCTAssertEqual(rows.map(\.metricsReceived), [7, 1])
    }

    func testPerDeliveryLines() throws {
        let lines = Dictionary(uniqueKeysWithValues: try report().deliveries.map { ($0.deliveryID, $0) })
        XCTAssertEqual(lines.keys.sorted(), ["d1", "d2", "d3", "d5", "d9"])
        XCTAssertEqual(lines["d1"]?.sent, true)
        XCTAssertEqual(lines["d1"]?.opened, 1)
        XCTAssertEqual(lines["d1"]?.firstSeen, t0)
        XCTAssertEqual(lines["d1"]?.lastSeen, t0 + 10)
        XCTAssertEqual(lines["d1"]?.routes, ["/v1/track", "/v1/b"])
        XCTAssertEqual(lines["d2"]?.delivered, 2)
        XCTAssertEqual(lines["d2"]?.duplicates, 1)
        XCTAssertEqual(lines["d3"]?.recoveredAtLaunch, true)
        XCTAssertEqual(lines["d5"]?.recoveredAtLaunch, true)
        XCTAssertEqual(lines["d9"]?.sent, false)
        XCTAssertEqual(lines["d9"]?.recoveredAtLaunch, false)
    }

    func testRejectedRequestsAreListed() throws {
        let requests = try report().requests
        XCTAssertTrue(requests.contains(RequestOutcomeCount(route: .track, status: 401, error: "unknown_credentials", count: 1)))
        XCTAssertTrue(requests.contains(RequestOutcomeCount(route: .track, status: 200, error: nil, count: 4)))
    }

    func testWithoutGatewayRecordsSentAndLostAreUnknown() throws {
        let dir = Fixtures.temporaryDirectory("report")
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try MetricStore(path: dir.appendingPathComponent("metrics.sqlite").path)
        try store.insert(dataset())
        let report = try MetricsReport.load(store: store)
        XCTAssertNil(report.totals.sent)
        XCTAssertNil(report.totals.lost)
        XCTAssertNil(report.totals.deliveryRate)
        XCTAssertEqual(report.totals.delivered, 5)
        XCTAssertTrue(report.text().contains("No gateway records given"))
    }

    func testAHigherThresholdNoLongerCountsTheLegacyMetricAsRecovered() throws {
        let dir = Fixtures.temporaryDirectory("report")
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try MetricStore(path: dir.appendingPathComponent("metrics.sqlite").path)
        try store.insert(dataset())
        let report = try MetricsReport.load(store: store, recoveryThresholdSeconds: 8000)
        XCTAssertEqual(report.totals.recoveredAtLaunch, 1, "only the /v1/b delivered remains recovered")
    }

    func testJSONRoundTrips() throws {
        let r = try report()
        let data = try JSONEncoder().encode(r)
        XCTAssertEqual(try JSONDecoder().decode(MetricsReport.self, from: data), r)
    }
}

import PushCore
import PushMetrics
import PushStore
import TestSupport
import XCTest

/// The report's counts and rates on a hand-built metrics dataset, joined with gateway records
/// written by a real `pushlab serve --db`; the answers are worked out below.
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

    /// The gateway's records, written by a real `pushlab serve --db` (its own record store and
    /// schema, not a copy of it): d1–d5 accepted APNs pushes, d6 rejected (TopicDisallowed: the
    /// gateway refuses it before reading the payload, so its record has no delivery id), and one
    /// FCM message without a delivery id. Made once for the class.
    private static let gatewayRecords: Result<String, Error> = Result {
        try Fixtures.requirePushlab()
        let dir = Fixtures.temporaryDirectory("report-gateway")
        let path = dir.appendingPathComponent("gateway.sqlite").path
        let serve = try ServerProcess(["serve", "--port", "0", "--h2c-port", "0", "--apns-port", "0", "--db", path]) { $0.contains("quick start") }
        defer { serve.stop() }
        guard let apnsPort = serve.port(after: "APNs: https://127.0.0.1:"), let googlePort = serve.port(after: "https://127.0.0.1:") else {
            throw TestEnvironmentError("no ports in the banner: \(serve.banner)")
        }
        func send(_ arguments: [String], exits expected: Int32) throws {
            let r = try ProcessRunner.pushlab(arguments + ["--ca-file", Fixtures.caFile, "--no-history"])
            guard r.status == expected else {
                throw TestEnvironmentError("pushlab \(arguments.joined(separator: " ")) exited \(r.status), not \(expected): \(r.stdout)\(r.stderr)")
            }
        }
        for (n, id) in ["d1", "d2", "d3", "d4", "d5", "d6"].enumerated() {
            let payload = dir.appendingPathComponent("\(id).json")
            try Data(#"{"aps":{"alert":"x","mutable-content":1},"CIO-Delivery-ID":"\#(id)","CIO-Delivery-Token":"tok-\#(id)"}"#.utf8).write(to: payload)
            let topic = id == "d6" ? "io.pushlab.other" : Fixtures.bundleID  // quick start refuses other topics
            try send(["send", "apns", "--url", "https://127.0.0.1:\(apnsPort)", "--key", Fixtures.apnsKey, "--team-id", Fixtures.apnsTeamID,
                      "--topic", topic, "--token", String(repeating: String(format: "%02x", n + 1), count: 32), payload.path],
                     exits: id == "d6" ? 1 : 0)
        }
        let account = try Fixtures.fcmServiceAccount(tokenURI: "https://127.0.0.1:\(googlePort)/token", in: dir)
        try send(["send", "fcm", "--url", "https://127.0.0.1:\(googlePort)", "--service-account", account,
                  "--token", "fcm1:APA91b" + String(repeating: "x", count: 140), "--title", "t"], exits: 0)
        let log = serve.stop()  // SIGINT: the record writer commits everything before exit
        guard serve.exitStatus == 0 else { throw TestEnvironmentError("pushlab serve exited \(serve.exitStatus): \(log)") }
        return path
    }

    private func gatewayDatabase() throws -> String {
        let path = try Self.gatewayRecords.get()
        let rows = try ProcessRunner.run("/usr/bin/sqlite3", [path, "SELECT service, status, coalesce(delivery_id, '-') FROM pushes ORDER BY id;"])
        XCTAssertEqual(rows.stdout.split(separator: "\n"),
                       ["apns|200|d1", "apns|200|d2", "apns|200|d3", "apns|200|d4", "apns|200|d5", "apns|400|-", "fcm|200|-"], rows.stderr)
        return path
    }

    private func report() throws -> MetricsReport {
        let dir = Fixtures.temporaryDirectory("report")
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try MetricStore(path: dir.appendingPathComponent("metrics.sqlite").path)
        try store.insert(dataset())
        return try MetricsReport.load(store: store, gatewayDatabasePath: try gatewayDatabase(), recoveryThresholdSeconds: 60)
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

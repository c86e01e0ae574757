import Foundation
import PushCore
import PushDevice
import PushHTTP
import TestSupport
import XCTest

/// Issue 9 item 4: a cold start queues the pending rows as delivered events with their original
/// timestamps on the app's `/v1/b` pipeline; cio-4 deletes after queueing, improved after a 2xx.
final class LaunchRecoveryTests: XCTestCase {
    private var container: URL!
    private var client: HTTPClient!

    override func setUp() async throws {
        container = Fixtures.temporaryDirectory("recovery")
        client = try HTTPClient(configuration: HTTPClientConfiguration(caFile: Fixtures.caFile))
    }

    override func tearDown() async throws {
        await client.shutdown(abortInFlight: true)
        try? FileManager.default.removeItem(at: container)
    }

    private func seed(_ profile: AppProfile) throws -> any PendingMetricStore {
        let store = try PendingMetricStores.open(profile: profile, process: .notificationServiceExtension, container: container)
        // Appended out of time order: recovery must still send oldest first.
        _ = try store.append(PendingDeliveryMetric(deliveryID: "late", deviceID: "tok", timestamp: Date(timeIntervalSince1970: 1_775_126_900)))
        _ = try store.append(PendingDeliveryMetric(deliveryID: "early", deviceID: "tok", timestamp: Date(timeIntervalSince1970: 1_775_126_768)))
        return store
    }

    private func recover(_ profile: AppProfile, server: ImageTestServer) async throws -> LaunchRecoveryReport {
        var p = profile
        p.metricsBaseURL = server.baseURL
        let store = try PendingMetricStores.open(profile: p, process: .app, container: container)
        return try await LaunchRecovery(profile: p, store: store, pipeline: LaunchRecovery.pipeline(for: p, transport: client),
                                        identity: PipelineIdentity(anonymousId: "anon-1")).run()
    }

    func testCIORecoverySendsOriginalTimestampsOldestFirstAndDeletesAfterQueueing() async throws {
        let profile = AppProfile(bundleID: "io.pushlab.demo", extensionBundleID: "io.pushlab.demo.richpush", cdpAPIKey: "k")
        _ = try seed(profile)
        let server = try ImageTestServer()
        let report = try await recover(profile, server: server)
        await server.stop()
        XCTAssertEqual(report.deletedAfterQueueing, 2)
        XCTAssertEqual(report.remainingInStore, 0)
        let batch = try XCTUnwrap(server.metricRequests.first)
        XCTAssertEqual(batch.path, "/v1/b")
        let body = try JSONParser().parse(batch.body).root
        let events = try XCTUnwrap(body["batch"]?.arrayValue)
        XCTAssertEqual(events.map { $0["properties"]?["deliveryId"]?.stringValue }, ["early", "late"])
        XCTAssertEqual(events.map { $0["timestamp"]?.stringValue }, ["2026-04-02T10:46:08.000Z", "2026-04-02T10:48:20.000Z"])
        XCTAssertEqual(events.first?["properties"]?["metric"]?.stringValue, "delivered")
    }

    func testCIORecoveryLosesRowsWhenTheUploadFails() async throws {
        let profile = AppProfile(bundleID: "io.pushlab.demo", extensionBundleID: "io.pushlab.demo.richpush", cdpAPIKey: "k")
        _ = try seed(profile)
        let server = try ImageTestServer(metricStatus: 500)
        let report = try await recover(profile, server: server)
        await server.stop()
        XCTAssertEqual(report.acknowledgedEvents, 0)
        XCTAssertEqual(report.remainingInStore, 0, "the reference SDK deleted them before the upload")
        XCTAssertEqual(report.remainingInQueue, 2)
    }

    func testImprovedRecoveryKeepsRowsUntilA2xx() async throws {
        let profile = AppProfile(bundleID: "io.pushlab.demo", extensionBundleID: "io.pushlab.demo.richpush", cdpAPIKey: "k", sdkMode: .improved)
        _ = try seed(profile)
        let failing = try ImageTestServer(metricStatus: 503)
        let first = try await recover(profile, server: failing)
        await failing.stop()
        XCTAssertEqual(first.remainingInStore, 2)
        let ok = try ImageTestServer()
        let second = try await recover(profile, server: ok)
        await ok.stop()
        XCTAssertEqual(second.deletedAfterAcknowledgement, 2)
        XCTAssertEqual(second.remainingInStore, 0)
        let body = String(decoding: try XCTUnwrap(ok.metricRequests.first).body, as: UTF8.self)
        XCTAssertTrue(body.contains(#""messageId":"delivered-early""#), body)
    }
}

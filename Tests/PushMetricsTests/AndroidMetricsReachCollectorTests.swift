import Foundation
import PushCore
import PushDevice
import PushHTTP
import PushMetrics
import TestSupport
import XCTest

/// The Android SDK's metric requests (docs/specs/android-side.md §4) are accepted and stored by
/// the collector, a repeat is counted as a duplicate, and the report splits by platform.
final class AndroidMetricsReachCollectorTests: XCTestCase {
    func profile(workManager: Bool) throws -> AndroidAppProfile {
        var p = try AndroidAppProfile.load(path: Fixtures.path("payloads/apps/android-demo.json"))
        p.cdpApiKey = CollectorHarness.cdpKey
        p.metricsBaseURL = "https://collector.test"
        p.workManagerAvailable = workManager
        return p
    }

    func testKilledAfterSendingIsStoredTwiceAndCountedAsADuplicateUnderAndroid() async throws {
        let h = try CollectorHarness()
        let files = Fixtures.temporaryDirectory("android-files")
        defer { try? FileManager.default.removeItem(at: files) }
        let transport = DevicePipelineReachesCollectorTests.RouterTransport(router: h.router)
        let report = await AndroidDeliveredMetric(profile: try profile(workManager: false), transport: transport,
                                                  store: try AndroidPendingDeliveryStore(filesDir: files),
                                                  conditions: AndroidConditions(killAtMs: 150, launchAtMs: 5_000, requestMs: 200, horizonMs: 100_000))
            .run(deliveryID: "dlv-android-dup", deliveryToken: "fcm-token-1")
        XCTAssertEqual(report.fate, .sentMoreThanOnce)
        XCTAssertEqual(report.requests.map(\.status), [200, 200])
        let rows = try h.storedRows("SELECT route, metric, delivery_id, duplicate, user_agent FROM metrics ORDER BY id")
        XCTAssertEqual(rows.map { Array($0.prefix(4)) }, [["/v1/track", "delivered", "dlv-android-dup", "0"], ["/v1/b", "delivered", "dlv-android-dup", "1"]])
        XCTAssertTrue(rows.allSatisfy { $0[4] == "Android Client/4.19.0" })
        let summary = try h.collector.report()
        let android = try XCTUnwrap(summary.byPlatform.first { $0.group == "android" })
        XCTAssertEqual(android.delivered, 1)
        XCTAssertEqual(android.duplicates, 1)
        XCTAssertEqual(summary.byPlatform.first { $0.group == "ios" }?.metricsReceived, 0)
    }
}

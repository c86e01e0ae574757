import PushCore
import PushMetrics
import XCTest

/// Fault plans act per route: injected statuses (with Retry-After), dropped streams, delays;
/// other routes are untouched; faulted requests are recorded, their metrics not stored.
final class CollectorAppliesFaultPlanTests: XCTestCase {
    let track = #"{"anonymousId":"f1","event":"Report Delivery Event","properties":{"recipient":"t","metric":"delivered","deliveryId":"f1"}}"#
    let legacy = #"{"delivery_id":"f1","device_id":"tok","event":"delivered","timestamp":1775126768}"#

    func testStatusFaultAnswers503WithRetryAfterOnItsRouteOnly() async throws {
        let plan = try FaultPlan.parse(flags: ["route=/v1/track,status=503,retry-after=2"], seed: 1)
        let h = try CollectorHarness(faultPlan: plan)
        let outcome = try await h.post("/v1/track", track, authorization: CollectorHarness.cdpAuthorization)
        guard case .response(let status, let headers, let body) = outcome else { return XCTFail("expected a response") }
        XCTAssertEqual(status, 503)
        XCTAssertEqual(headers["retry-after"], "2")
        XCTAssertTrue(body.contains("injected_fault"))
        let (legacyStatus, _) = try await h.send("/push/events", legacy, authorization: CollectorHarness.legacyAuthorization)
        XCTAssertEqual(legacyStatus, 200)
        XCTAssertEqual(try h.storedRows("SELECT route FROM metrics"), [["/push/events"]])
        XCTAssertEqual(try h.storedRows("SELECT route, status, error FROM metric_requests ORDER BY id"),
                       [["/v1/track", "503", "fault:status-503"], ["/push/events", "200", ""]])
    }

    func testScheduledFaultHitsOnlyTheNamedRequests() async throws {
        let plan = try FaultPlan.parse(flags: ["route=/v1/track,requests=2-3,status=500"])
        let h = try CollectorHarness(faultPlan: plan)
        var statuses: [Int] = []
        for _ in 1...5 { statuses.append(try await h.send("/v1/track", track, authorization: CollectorHarness.cdpAuthorization).0) }
        XCTAssertEqual(statuses, [200, 500, 500, 200, 200])
    }

    func testDropFaultResetsTheStream() async throws {
        let plan = try FaultPlan.parse(flags: ["route=/v1/track,drop=stream"])
        let h = try CollectorHarness(faultPlan: plan)
        let outcome = try await h.post("/v1/track", track, authorization: CollectorHarness.cdpAuthorization)
        XCTAssertEqual(outcome, .reset)
        XCTAssertEqual(try h.storedRows("SELECT status, error FROM metric_requests"), [["0", "fault:drop-stream"]])
        XCTAssertEqual(try h.storedRows("SELECT COUNT(*) FROM metrics"), [["0"]])
    }

    func testLatencyFaultStillStoresTheMetric() async throws {
        let plan = try FaultPlan.parse(flags: ["route=/v1/*,latency=20ms"])
        let h = try CollectorHarness(faultPlan: plan)
        let (status, _) = try await h.send("/v1/track", track, authorization: CollectorHarness.cdpAuthorization)
        XCTAssertEqual(status, 200)
        XCTAssertEqual(try h.storedRows("SELECT delivery_id FROM metrics"), [["f1"]])
        XCTAssertEqual(h.collector.counters.faulted, 1)
    }

    func testStallHoldsTheAnswerThenStoresNormally() async throws {
        let plan = try FaultPlan.parse(flags: ["route=/v1/track,stall=30ms"])
        let h = try CollectorHarness(faultPlan: plan)
        let (status, json) = try await h.send("/v1/track", track, authorization: CollectorHarness.cdpAuthorization)
        XCTAssertEqual(status, 200)
        XCTAssertEqual(json["stored"] as? Int, 1)
        XCTAssertEqual(try h.storedRows("SELECT delivery_id FROM metrics"), [["f1"]])
    }

    func testFaultsApplyBeforeCredentials() async throws {
        let h = try CollectorHarness(faultPlan: try FaultPlan.parse(flags: ["route=/v1/track,status=429"]))
        let (status, _) = try await h.send("/v1/track", track, authorization: nil)
        XCTAssertEqual(status, 429)
    }

    func testProbabilisticFaultsReproduceForASeed() async throws {
        func run(seed: UInt64) async throws -> [Int] {
            let h = try CollectorHarness(faultPlan: try FaultPlan.parse(flags: ["route=/v1/track,p=0.3,status=429"], seed: seed))
            var out: [Int] = []
            for _ in 0..<40 { out.append(try await h.send("/v1/track", track, authorization: CollectorHarness.cdpAuthorization).0) }
            return out
        }
        let a = try await run(seed: 99), b = try await run(seed: 99), c = try await run(seed: 100)
        XCTAssertEqual(a, b)
        XCTAssertNotEqual(a, c)
        XCTAssertTrue(a.contains(429) && a.contains(200))
    }
}

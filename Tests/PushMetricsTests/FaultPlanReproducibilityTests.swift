import PushCore
import XCTest

/// Same seed + same request sequence → same decisions, per route, whatever other routes do.
final class FaultPlanReproducibilityTests: XCTestCase {
    private func decisions(_ plan: FaultPlan, _ paths: [String]) -> [FaultDecision] {
        let injector = FaultInjector(plan: plan)
        return paths.map { injector.decide(method: "POST", path: $0) }
    }

    private let plan = FaultPlan(seed: 42, rules: [
        FaultRule(route: "/v1/track", probability: 0.25, outcome: .status(503, retryAfter: 2, reason: nil)),
        FaultRule(route: "/v1/*", latency: .uniform(.milliseconds(10), .milliseconds(200))),
        FaultRule(route: "/v1/b", probability: 0.1, outcome: .drop(.stream)),
    ])

    func testSameSeedSameSequenceGivesSameDecisions() {
        let paths = (0..<500).map { $0 % 3 == 0 ? "/v1/b" : "/v1/track" }
        XCTAssertEqual(decisions(plan, paths), decisions(plan, paths))
    }

    func testAnotherSeedGivesOtherDecisions() {
        var other = plan
        other.seed = 43
        let paths = Array(repeating: "/v1/track", count: 200)
        XCTAssertNotEqual(decisions(plan, paths), decisions(other, paths))
    }

    func testDecisionsOfARouteDoNotDependOnOtherRoutesInterleaving() {
        let alone = decisions(plan, Array(repeating: "/v1/track", count: 100))
        let mixed = decisions(plan, (0..<300).map { $0 % 3 == 0 ? "/v1/track" : "/push/events" })
            .enumerated().filter { $0.offset % 3 == 0 }.map(\.element)
        XCTAssertEqual(alone.map(\.outcome), mixed.map(\.outcome))
    }

    func testProbabilityIsHonouredRoughly() {
        let hits = decisions(plan, Array(repeating: "/v1/track", count: 4000)).filter { $0.outcome != nil }.count
        XCTAssertEqual(Double(hits) / 4000, 0.25, accuracy: 0.03)
    }

    func testScheduleFiresOnExactlyTheNamedRequests() {
        let scheduled = FaultPlan(rules: [FaultRule(route: "/x", requests: RequestWindow(lower: 100, upper: 200), outcome: .status(500, retryAfter: nil, reason: nil))])
        let fired = decisions(scheduled, Array(repeating: "/x", count: 300)).enumerated().filter { $0.element.outcome != nil }.map { $0.offset + 1 }
        XCTAssertEqual(fired, Array(100...200))
    }

    func testLatencyDistributionsStayInTheirBounds() {
        let d = decisions(plan, Array(repeating: "/v1/b", count: 500)).map(\.delay)
        XCTAssertTrue(d.allSatisfy { $0 >= .milliseconds(10) && $0 <= .milliseconds(200) })
        XCTAssertGreaterThan(Set(d).count, 100, "uniform draws should differ")
        let normal = FaultPlan(rules: [FaultRule(latency: .normal(mean: .milliseconds(100), deviation: .milliseconds(20)))])
        let samples = decisions(normal, Array(repeating: "/a", count: 4000)).map { $0.delay.seconds }
        let mean = samples.reduce(0, +) / Double(samples.count)
        XCTAssertEqual(mean, 0.100, accuracy: 0.003)
        XCTAssertTrue(samples.allSatisfy { $0 >= 0 })
    }

    func testGoAwayAfterNStreamsPerConnection() {
        let injector = FaultInjector(plan: FaultPlan(rules: [FaultRule(route: "/3/device/{token}", goAwayAfterStreams: 3)]))
        let a = (1...4).map { _ in injector.decide(method: "POST", path: "/3/device/abc", connectionID: 1).goAway }
        let b = (1...2).map { _ in injector.decide(method: "POST", path: "/3/device/abc", connectionID: 2).goAway }
        XCTAssertEqual(a, [false, false, true, false])
        XCTAssertEqual(b, [false, false])
        XCTAssertFalse(injector.decide(method: "POST", path: "/health", connectionID: 1).goAway)
    }

    func testFirstFiringOutcomeWinsAndLatenciesAdd() {
        let plan = FaultPlan(rules: [
            FaultRule(latency: .fixed(.milliseconds(5))),
            FaultRule(route: "/a", outcome: .status(429, retryAfter: nil, reason: nil), goAwayAfterStreams: nil),
            FaultRule(route: "/a", latency: .fixed(.milliseconds(7)), outcome: .drop(.connection)),
        ])
        let d = FaultInjector(plan: plan).decide(method: "POST", path: "/a")
        XCTAssertEqual(d.delay, .milliseconds(12))
        XCTAssertEqual(d.outcome, .status(429, retryAfter: nil, reason: nil))
        XCTAssertEqual(d.firedRules, [0, 1, 2])
    }

    func testMethodFilter() {
        let injector = FaultInjector(plan: FaultPlan(rules: [FaultRule(method: "GET", outcome: .drop(.stream))]))
        XCTAssertNil(injector.decide(method: "POST", path: "/a").outcome)
        XCTAssertEqual(injector.decide(method: "GET", path: "/a").outcome, .drop(.stream))
    }
}

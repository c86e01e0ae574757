import Foundation
import PushDevice
import TestSupport
import XCTest
@testable import OfflineLab

/// The delivery-metric experiment over the real stack (issue 10 "Tests"), small and fast.
final class SimulationTests: XCTestCase {
    private func simulation() throws -> Simulation {
        Simulation(certsDirectory: Fixtures.path("certs"), assetsDirectory: Fixtures.path("payloads/assets"),
                   profile: try AppProfile.load(path: Fixtures.path("payloads/apps/demo.json")))
    }

    private func params(_ store: SimulatedStore, pushes: Int = 60, kill: Double = 0, stage: KillStage = .beforeSend,
                        launches: Int = 1, seed: UInt64 = 7) -> SimulationParameters {
        var p = SimulationParameters()
        p.pushes = pushes
        p.store = store
        p.killRate = kill
        p.killStage = stage
        p.launches = launches
        p.seed = seed
        p.timeScale = 10  // 3 s of real budget: a loaded machine cannot turn kills into expiries
        p.imageLatency = .uniform(.milliseconds(20), .milliseconds(200))
        return p
    }

    func testSameSeedGivesTheSameCounts() async throws {
        let sim = try simulation()
        var p = params(.cio, kill: 0.3, stage: .mixed)
        p.metricFailureRate = 0.1
        let a = try await sim.run(p)
        let b = try await sim.run(p)
        XCTAssertEqual(a.counts, b.counts)
        XCTAssertGreaterThan(a.killed, 0, "the seed should kill some extensions")
    }

    func testNoFaultsDeliversEverythingLive() async throws {
        let r = try await simulation().run(params(.cio))
        XCTAssertEqual(r.accepted, 60)
        XCTAssertEqual(r.deliveredLive, 60)
        XCTAssertEqual(r.lost, 0)
        XCTAssertEqual(r.duplicates, 0)
        XCTAssertEqual(r.recoveredAtLaunch, 0)
    }

    func testWithoutAStoreEveryKillBeforeTheMetricIsLost() async throws {
        let r = try await simulation().run(params(.off, kill: 0.3))
        XCTAssertGreaterThan(r.killed, 0)
        XCTAssertEqual(r.lost, r.killed)
        XCTAssertEqual(r.recoveredAtLaunch, 0)
        XCTAssertEqual(r.deliveredLive, r.accepted - r.killed)
    }

    func testSQLiteStoreWithALaunchAfterTheFaultsLosesAndDuplicatesNothing() async throws {
        let r = try await simulation().run(params(.sqlite, kill: 0.3))
        XCTAssertGreaterThan(r.killed, 0)
        XCTAssertEqual(r.lost, 0)
        XCTAssertEqual(r.duplicates, 0)
        XCTAssertEqual(r.recoveredAtLaunch, r.killed)
    }

    func testCIOStoreDuplicatesAMetricThatArrivedButWhoseRowWasNotRemoved() async throws {
        let r = try await simulation().run(params(.cio, kill: 0.3, stage: .inFlight))
        XCTAssertGreaterThan(r.killed, 0)
        XCTAssertEqual(r.duplicates, r.killed, "each in-flight kill reaches the collector live and again at launch")
        XCTAssertEqual(r.lost, 0)
    }

    func testCIOStoreLosesRowsBeyondItsCapOf100() async throws {
        let r = try await simulation().run(params(.cio, pushes: 130, kill: 1))
        XCTAssertEqual(r.killed, 130)
        XCTAssertEqual(r.expired, 0)
        XCTAssertEqual(r.recoveredAtLaunch, 100, "the file keeps the newest 100 rows")
        XCTAssertEqual(r.lost, 30)
    }

    func testMisconfiguredAppGroupBehavesLikeNoStore() async throws {
        var p = params(.cio, kill: 0.3)
        p.misconfiguredAppGroup = true
        let r = try await simulation().run(p)
        XCTAssertGreaterThan(r.killed, 0)
        XCTAssertEqual(r.recoveredAtLaunch, 0)
        XCTAssertEqual(r.lost, r.killed)
    }

    func testBatchesSpreadLaunchesEvenly() {
        XCTAssertEqual(Simulation.batches(pushes: 10, launches: 2).map(\.range), [1...5, 6...10])
        XCTAssertEqual(Simulation.batches(pushes: 10, launches: 0), [Simulation.Batch(range: 1...10, launchAfter: false)])
    }
}

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
                        launches: Int = 1, seed: UInt64 = 7, devices: Int = 1) -> SimulationParameters {
        var p = SimulationParameters()
        p.devices = devices
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

    /// Issue 23 item 3: two runs of the same seed at once, while a third thread spins on a core,
    /// give identical counts — including the `cio` file's evictions past its 100-row cap, which
    /// used to depend on how 64 concurrent extensions interleaved.
    func testSameSeedGivesTheSameCountsUnderLoad() async throws {
        let sim = try simulation()
        var p = params(.cio, pushes: 240, kill: 0.5, stage: .mixed, devices: 1)
        p.metricFailureRate = 0.1
        p.concurrency = 64
        let load = BusyLoop()
        defer { load.stop() }
        async let a = sim.run(p)
        async let b = sim.run(p)
        let (x, y) = try await (a, b)
        load.stop()
        let z = try await sim.run(p)
        XCTAssertEqual(x.counts, y.counts)
        XCTAssertEqual(x.counts, z.counts)
        XCTAssertEqual(x.expired, 0, "a kill or a slow machine turned into an expiry")
        XCTAssertGreaterThan(x.droppedByCap ?? 0, 0, "the run should push the cio file past its cap, where order matters")
        XCTAssertGreaterThan(x.duplicates, 0, "the seed should kill some extensions in flight")
    }

    /// The seed spreads pushes over the phones; each phone's store holds only its own rows.
    func testFleetSpreadsPushesOverPhonesWithTheirOwnStores() async throws {
        let p = params(.cio, pushes: 400, kill: 1, devices: 8)
        let perPhone = Dictionary(grouping: 1...400, by: p.phone(of:)).mapValues(\.count)
        XCTAssertEqual(perPhone.count, 8)
        XCTAssertTrue(perPhone.values.allSatisfy { $0 > 20 && $0 < 100 }, "\(perPhone)")
        // 400 killed pushes on one phone would overflow its 100-row file; on 8 phones none does.
        let r = try await simulation().run(params(.cio, pushes: 200, kill: 1, devices: 8))
        XCTAssertEqual(r.killed, 200)
        XCTAssertEqual(r.recoveredAtLaunch, 200)
        XCTAssertEqual(r.lost, 0)
        XCTAssertEqual(r.droppedByCap, 0)
    }

    /// `--offline A-B`: the metric requests of those pushes fail; the row waits for the launch.
    /// On one phone the reference file keeps the newest 100 rows — the first live push after the
    /// span evicts one more while its metric is in flight — and says what it dropped.
    func testOfflineSpanIsRecoveredAtLaunchUpToTheStoresCap() async throws {
        var p = params(.cio, pushes: 140, devices: 1)
        p.offline = [11...130]
        let r = try await simulation().run(p)
        XCTAssertEqual(r.byFault?.first { $0.fault == .offline }?.pushes, 120)
        XCTAssertEqual(r.deliveredLive, 20)
        XCTAssertEqual(r.droppedByCap, 21)
        XCTAssertEqual(r.recoveredAtLaunch, 99)
        XCTAssertEqual(r.lost, 21)
        // The improved mode retries until its deadline: a short budget keeps the test fast.
        p.store = .sqlite
        p.offline = [11...40]
        p.budget = .seconds(2)
        let s = try await simulation().run(p)
        XCTAssertEqual(s.recoveredAtLaunch, 30)
        XCTAssertEqual(s.lost, 0)
        XCTAssertEqual(s.droppedByCap, 0)
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
        XCTAssertEqual(r.droppedByCap, 30)
    }

    func testMisconfiguredAppGroupBehavesLikeNoStore() async throws {
        var p = params(.cio, kill: 0.3)
        p.misconfiguredAppGroup = true
        let r = try await simulation().run(p)
        XCTAssertGreaterThan(r.killed, 0)
        XCTAssertEqual(r.recoveredAtLaunch, 0)
        XCTAssertEqual(r.lost, r.killed)
    }

    /// Issue 41: an image that arrives at the budget's last instant is too late — the expiry
    /// ends the run — and one a millisecond earlier is in time. The extension clock decides
    /// ties, not the threads: every run of the same seed gives the same counts.
    func testAnImageAtTheDeadlineIsAnExpiryAndOneJustBeforeItIsNot() async throws {
        var p = params(.cio, pushes: 20)  // cio-4: the expiry is the run's only deadline
        p.budget = .seconds(2)
        p.imageLatency = .fixed(.seconds(2))
        let atTheDeadline = try await simulation().run(p)
        XCTAssertEqual(atTheDeadline.expired, 20)
        XCTAssertEqual(atTheDeadline.deliveredLive, 20, "the metric was acknowledged before the deadline")
        p.imageLatency = .fixed(.milliseconds(1999))
        let justBefore = try await simulation().run(p)
        XCTAssertEqual(justBefore.expired, 0)
        XCTAssertEqual(justBefore.deliveredLive, 20)
    }

    func testBatchesSpreadLaunchesEvenly() {
        XCTAssertEqual(Simulation.batches(pushes: 10, launches: 2).map(\.range), [1...5, 6...10])
        XCTAssertEqual(Simulation.batches(pushes: 10, launches: 0), [Simulation.Batch(range: 1...10, launchAfter: false)])
    }
}

/// Keeps one core busy until stopped (the "extra CPU load" of issue 23 item 3).
final class BusyLoop: @unchecked Sendable {
    private let running = NSLock()
    private var stopped = false
    init() {
        let thread = Thread { [self] in
            var x: UInt64 = 1
            while !running.withLock({ stopped }) {
                for _ in 0..<100_000 { x = x &* 6364136223846793005 &+ 1442695040888963407 }
            }
            if x == 0 { print("") }  // keeps the loop from being optimised away
        }
        thread.start()
    }
    func stop() { running.withLock { stopped = true } }
}

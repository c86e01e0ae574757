import Foundation
import PushDevice
import TestSupport
import XCTest
@testable import OfflineLab

/// The delivery-metric experiment on the virtual Android phone (issue 21 "Recovery experiment"):
/// FCM client → gateway → the Customer.io Android SDK → collector, small and fast.
final class AndroidSimulationTests: XCTestCase {
    private func simulation() throws -> Simulation {
        var s = Simulation(certsDirectory: Fixtures.path("certs"), assetsDirectory: Fixtures.path("payloads/assets"),
                           profile: try AppProfile.load(path: Fixtures.path("payloads/apps/demo.json")))
        s.androidProfile = try AndroidAppProfile.load(path: Fixtures.path("payloads/apps/android-demo.json"))
        return s
    }

    private func params(_ store: SimulatedStore, pushes: Int = 40, kill: Double = 0, stage: KillStage = .beforeSend,
                        launches: Int = 1, doze: Double = 0, seed: UInt64 = 7, devices: Int = 1) -> SimulationParameters {
        var p = SimulationParameters()
        p.devices = devices
        p.pushes = pushes
        p.store = store
        p.killRate = kill
        p.killStage = stage
        p.launches = launches
        p.seed = seed
        var a = AndroidSimulationSettings()
        a.dozeRate = doze
        p.android = a
        return p
    }

    private func row(_ r: SimulationResult, _ fault: SimulatedFault) -> FaultOutcome? { r.byFault?.first { $0.fault == fault } }

    func testSameSeedGivesTheSameCounts() async throws {
        let sim = try simulation()
        var p = params(.cio, kill: 0.3, stage: .mixed, doze: 0.3)
        p.metricFailureRate = 0.1
        let a = try await sim.runAndroid(p)
        let b = try await sim.runAndroid(p)
        XCTAssertEqual(a.counts, b.counts)
        XCTAssertEqual(a.byFault, b.byFault)
        XCTAssertEqual(a.android, b.android)
        XCTAssertGreaterThan(a.killed, 0, "the seed should kill some processes")
        XCTAssertGreaterThan(row(a, .doze)?.pushes ?? 0, 0, "the seed should put some pushes in Doze")
    }

    /// Issue 21: an offline span on one phone piles its entries into the SDK's pending store,
    /// which keeps 100. When the network is back, each WorkManager job of `cio-android` claims
    /// its entry first and sends nothing when it is gone: what the cap dropped is lost. The
    /// improved mode's jobs send whether or not the entry is there; the legacy SDK has no store.
    func testOfflineSpanOverflowsThePendingStoresCapOf100() async throws {
        let sim = try simulation()
        var p = params(.cio, pushes: 140)
        p.offline = [11...140]
        let cio = try await sim.runAndroid(p)
        XCTAssertEqual(row(cio, .offline)?.pushes, 130)
        XCTAssertEqual(cio.droppedByCap, 30)
        XCTAssertEqual(cio.lost, 30)
        XCTAssertEqual(row(cio, .offline)?.lost, 30)
        XCTAssertEqual(cio.deliveredLive, 110)
        p.store = .sqlite
        let improved = try await sim.runAndroid(p)
        XCTAssertEqual(improved.droppedByCap, 30)
        XCTAssertEqual(improved.lost, 0)
        p.store = .off
        let legacy = try await sim.runAndroid(p)
        XCTAssertNil(legacy.droppedByCap)
        XCTAssertEqual(legacy.lost, 0)
        // Spread over 4 phones, no store holds more than 100 entries.
        p.store = .cio
        p.devices = 4
        let fleet = try await sim.runAndroid(p)
        XCTAssertEqual(fleet.droppedByCap, 0)
        XCTAssertEqual(fleet.lost, 0)
    }

    func testAndroidMeetsTheSameKillsAsTheIPhone() {
        let p = params(.cio, pushes: 200, kill: 0.3, stage: .mixed, doze: 0.5)
        for n in 1...200 {
            XCTAssertEqual(p.androidFate(of: n).killed, p.fate(of: n).killed, "push \(n)")
            XCTAssertEqual(p.androidFate(of: n).metricFails, p.fate(of: n).metricFails, "push \(n)")
        }
    }

    func testNoFaultsDeliversEverythingLive() async throws {
        let r = try await simulation().runAndroid(params(.cio))
        XCTAssertEqual(r.platform, .android)
        XCTAssertEqual(r.accepted, 40)
        XCTAssertEqual(r.android?.tracked, 40)
        XCTAssertEqual(r.deliveredLive, 40)
        XCTAssertEqual(r.lost, 0)
        XCTAssertEqual(r.duplicates, 0)
        XCTAssertEqual(r.recoveredAtLaunch, 0)
    }

    /// docs/specs/android-side.md §4: the worker claims the entry, then sends; killed in between,
    /// WorkManager's rerun finds no entry and reports success without sending.
    func testKillAfterTheClaimBeforeTheSendIsLostWithTheSDKsPendingStore() async throws {
        let r = try await simulation().runAndroid(params(.cio, kill: 0.3))
        XCTAssertGreaterThan(r.killed, 0)
        XCTAssertEqual(r.lost, r.killed)
        XCTAssertEqual(row(r, .killedBeforeSend)?.lost, r.killed)
        XCTAssertEqual(row(r, .killedBeforeSend)?.recovered, 0, "the launch finds nothing to hand off: the claim removed it")
        XCTAssertEqual(row(r, .none)?.lost, 0)
    }

    func testImprovedModeResendsAfterAKillBeforeTheSend() async throws {
        let r = try await simulation().runAndroid(params(.sqlite, kill: 0.3))
        XCTAssertGreaterThan(r.killed, 0)
        XCTAssertEqual(r.lost, 0)
        XCTAssertEqual(r.duplicates, 0)
    }

    func testLegacySDKSendsTwiceAfterAKillInFlight() async throws {
        let r = try await simulation().runAndroid(params(.off, kill: 0.3, stage: .inFlight))
        XCTAssertGreaterThan(r.killed, 0)
        XCTAssertEqual(r.lost, 0)
        XCTAssertEqual(r.duplicates, r.killed, "WorkManager reruns the job and the server gets the metric again")
    }

    func testAFailedMetricRequestIsRetriedByWorkManager() async throws {
        var p = params(.cio)
        p.metricFailureRate = 0.3
        let r = try await simulation().runAndroid(p)
        let failed = row(r, .metricFailed)?.pushes ?? 0
        XCTAssertGreaterThan(failed, 0)
        XCTAssertEqual(r.android?.retried, failed)
        XCTAssertEqual(r.lost, 0)
        XCTAssertEqual(r.deliveredLive, 40)
    }

    func testDozeIsHandedOffAtTheLaunchAndLostWhenTheAppIsNeverOpened() async throws {
        let sim = try simulation()
        let opened = try await sim.runAndroid(params(.cio, doze: 0.4))
        let dozing = row(opened, .doze)?.pushes ?? 0
        XCTAssertGreaterThan(dozing, 0)
        XCTAssertEqual(opened.recoveredAtLaunch, dozing, "the launch during Doze hands the pending entry to the pipeline")
        XCTAssertEqual(opened.android?.handedOff, dozing)
        XCTAssertEqual(opened.lost, 0)

        var p = params(.cio, launches: 0, doze: 0.4)
        p.android?.horizonMs = 3_600_000  // the Doze window is 2 h: the metric is still pending at the horizon
        let never = try await sim.runAndroid(p)
        XCTAssertEqual(never.lost, dozing)
        XCTAssertEqual(never.android?.pendingAtEnd, dozing)
    }
}

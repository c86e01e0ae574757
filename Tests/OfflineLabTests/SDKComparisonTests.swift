import Foundation
import PushDevice
import TestSupport
import XCTest
@testable import OfflineLab

/// `simulate --compare-sdks` (docs/retainza.md): the same seed gives the same counts, twice and
/// under load, and every tap and event is accounted for.
final class SDKComparisonTests: XCTestCase {
    private func parameters(seed: UInt64 = 7) -> SimulationParameters {
        var p = SimulationParameters()
        p.pushes = 60
        p.seed = seed
        p.devices = 3
        p.killRate = 0.2
        p.offline = [10...20]
        p.outages = [30...35]
        p.launches = 2
        return p
    }

    private func comparison(_ profile: String = "payloads/apps/retainza-demo.json") throws -> SDKComparison {
        SDKComparison(certsDirectory: Fixtures.path("certs"), assetsDirectory: Fixtures.path("payloads/assets"),
                      retainzaProfile: try RetainzaAppProfile.load(path: Fixtures.path(profile)),
                      customerIOProfile: try AppProfile.load(path: Fixtures.path("payloads/apps/demo.json")))
    }

    func testTheSameSeedGivesTheSameCountsTwiceAndUnderLoad() async throws {
        let c = try comparison()
        let first = try await c.run(parameters(), sdks: [.customerIO, .retainza])
        let second = try await c.run(parameters(), sdks: [.customerIO, .retainza])
        XCTAssertEqual(first, second)
        // Under load: three runs of the same seed at once, each on its own lab, competing for
        // the cores, the collector writers and the HTTP/2 clients.
        let p = parameters()
        async let a = c.run(p, sdks: [.customerIO, .retainza])
        async let b = c.run(p, sdks: [.retainza, .customerIO])
        async let d = c.run(p, sdks: [.customerIO, .retainza])
        let (loadedA, loadedB, loadedD) = try await (a, b, d)
        XCTAssertEqual(first, loadedA)
        XCTAssertEqual(first, Array(loadedB.reversed()))
        XCTAssertEqual(first, loadedD)
        let other = try await c.run(parameters(seed: 8), sdks: [.retainza])
        XCTAssertNotEqual(first[1], other[0], "another seed meets other faults")
    }

    func testEveryTapAndEventIsAccountedFor() async throws {
        let results = try await comparison().run(parameters(), sdks: [.customerIO, .retainza])
        let cio = results[0], rz = results[1]
        for r in results {
            XCTAssertEqual(r.pushesSent, 60)
            XCTAssertEqual(r.received, 60, "\(r.sdk): FCM delivered every push")
        }
        XCTAssertEqual(cio.opensCounted + cio.opensLostKilled + cio.opensLostNoLaunchOptions + cio.opensPendingAtEnd, cio.taps)
        XCTAssertGreaterThan(cio.opensLostKilled, 0, "a kill drops the in-memory pipeline's waiting opens")
        XCTAssertEqual(rz.opensCounted + rz.opensLostOffline + rz.opensLostOutage + rz.opensLostNoLaunchOptions + rz.opensLostNoHandleOpen + rz.opensLostConsent,
                       rz.taps)
        XCTAssertEqual(rz.opensLostOffline, 11, "pushes 10–20 are tapped offline: acks are never queued")
        XCTAssertEqual(rz.opensLostOutage, 6, "pushes 30–35 meet the 5xx outage")
        XCTAssertEqual(rz.eventsTracked, rz.eventsDeliveredLive + rz.eventsQueued + rz.eventsDropped4xx + rz.eventsDroppedConsent)
        XCTAssertEqual(rz.eventsQueued, rz.eventsDeliveredLate + rz.eventsDroppedCap + rz.eventsLostAtRestart + rz.eventsPendingAtEnd)
        XCTAssertGreaterThan(rz.eventsDeliveredLate, 0)
        XCTAssertEqual(rz.eventsLateWithOriginalTimestamp, rz.eventsDeliveredLate, "late events carry their call-time timestamp")
        XCTAssertEqual(rz.eventsLostAtRestart, 0, "UserDefaults storage keeps the queue across launches")
    }

    func testMemoryOnlyStorageAndMissingLaunchOptionsShowTheirLosses() async throws {
        let memory = try await comparison("payloads/apps/retainza/memory-storage.json").run(parameters(), sdks: [.retainza])[0]
        XCTAssertGreaterThan(memory.eventsLostAtRestart, 0, "storage nil: the queue dies with the process")
        let cold = try await comparison("payloads/apps/retainza/no-launch-options.json").run(parameters(), sdks: [.retainza])[0]
        XCTAssertGreaterThan(cold.opensLostNoLaunchOptions, 0, "every killed app's tap is a cold start")
        let consent = try await comparison("payloads/apps/retainza/no-consent.json").run(parameters(), sdks: [.retainza])[0]
        XCTAssertEqual(consent.received, 0, "nothing leaves the device: the FCM token never registered, so no push reaches it")
        XCTAssertEqual(consent.opensCounted, 0)
        XCTAssertEqual(consent.eventsTracked, 0)
    }
}

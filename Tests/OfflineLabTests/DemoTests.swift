import Foundation
import PushDevice
import TestSupport
import XCTest
@testable import OfflineLab

/// `pushlab demo`'s scenario, in process and as the real binary.
final class DemoTests: XCTestCase {
    func testEveryDemoStepPasses() async throws {
        let work = Fixtures.temporaryDirectory("demo")
        defer { try? FileManager.default.removeItem(at: work) }
        var configuration = LabConfiguration(certsDirectory: Fixtures.path("certs"), assetsDirectory: Fixtures.path("payloads/assets"), workDirectory: work)
        configuration.collectorFaults = DemoScenario.collectorFaults
        let lab = try Lab(configuration: configuration)
        try lab.start()
        var scenario = DemoScenario(profile: try AppProfile.load(path: Fixtures.path("payloads/apps/demo.json")))
        scenario.androidProfile = try AndroidAppProfile.load(path: Fixtures.path("payloads/apps/android-demo.json"))
        let result = await scenario.run(lab: lab)
        await lab.stop()
        for step in result.steps where !step.passed { XCTFail("\(step.title): \(step.details.joined(separator: "; "))") }
        XCTAssertTrue(result.passed)
        XCTAssertEqual(result.report?.totals.recoveredAtLaunch, 1)
        let android = result.report?.byPlatform.first { $0.group == "android" }
        XCTAssertEqual(android?.delivered, 1, "the virtual Android phone's delivered metric")
        XCTAssertEqual(android?.opened, 1, "the virtual Android phone's opened metric")
        let relay = result.steps.first { $0.title.hasPrefix("relay:") }
        XCTAssertEqual(relay?.passed, true, "the gorush-format request through pushlab relay: \(relay?.details ?? [])")
        let viaRelay = result.report?.deliveries.first { $0.deliveryID == DemoScenario.relayDelivery }
        XCTAssertEqual(viaRelay?.delivered, 1, "the push sent by the relay was delivered on the iPhone and counted once")
        XCTAssertEqual(result.steps.filter { $0.title.hasPrefix("Retainza") }.map(\.passed), [true, true],
                       "the Retainza iPhone's push, tap and offline event (docs/retainza.md)")
    }

    func testDemoCommandExitsZeroAndPrintsTheReport() throws {
        let r = try ProcessRunner.pushlab(["demo"], timeout: 120)
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        XCTAssertTrue(r.stdout.contains("demo passed"), r.stdout)
        XCTAssertFalse(r.stdout.contains("eyJ"), "no JWT in the output")
        XCTAssertFalse(r.stdout.contains("console: "), "without --console the demo ends after its run (ConsoleDemoTests has --console)")
    }
}

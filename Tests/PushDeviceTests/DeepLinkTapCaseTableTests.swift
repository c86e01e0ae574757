import Foundation
import PushCore
@testable import PushDevice
import TestSupport
import XCTest

/// The table of taps in payloads/taps/cases.json (also replayed by `pushlab open --cases`):
/// link kind × profile × launch state, each with its expected tier, destination and metric
/// (docs/specs/device-side.md §3, §5, §6).
final class DeepLinkTapCaseTableTests: XCTestCase {
    static let path = Fixtures.path("payloads/taps/cases.json")

    func loadTable() throws -> TapCaseTable {
        let table = try TapCaseTable.load(path: Self.path)
        try table.check(source: Self.path)
        return table
    }

    func fallbackApp() -> AppProfile {
        AppProfile(bundleID: "io.pushlab.demo", extensionBundleID: "io.pushlab.demo.richpush", cdpAPIKey: "k")
    }

    func testEveryCaseResolvesToItsExpectedTierDestinationAndMetric() async throws {
        let table = try loadTable()
        let results = await table.run(app: fallbackApp(), transport: EventPipelineScriptedTransport())
        XCTAssertEqual(results.count, table.cases.count)
        for r in results {
            XCTAssertNotNil(r.testCase.expect, "case '\(r.testCase.name)' has no expectation")
            XCTAssertTrue(r.passed, "case \(r.index + 1) '\(r.testCase.name)': \(r.mismatches.joined(separator: "; "))")
        }
    }

    func testTheTableCoversLinkKindsProfilesAndLaunchStates() throws {
        let table = try loadTable()
        XCTAssertGreaterThanOrEqual(table.cases.count, 40)
        let states = Set(table.cases.map(\.state))
        XCTAssertEqual(states, Set(AppLaunchState.allCases))
        let kinds = Set(table.cases.map { c -> String in
            guard let link = c.link else { return "none" }
            if link.lowercased().hasPrefix("https://links.pushlab.io") { return "universal" }
            if link.lowercased().hasPrefix("http") { return "https" }
            if URL(string: link) == nil { return "invalid" }
            return "scheme"
        })
        XCTAssertEqual(kinds, ["universal", "https", "invalid", "scheme", "none"])
        let profiles = table.cases.map { table.profiles[$0.profile]! }
        XCTAssertTrue(profiles.contains { $0.callback != nil })
        XCTAssertTrue(profiles.contains { $0.callback == nil })
        XCTAssertTrue(profiles.contains { $0.appDelegate.continueUserActivity != nil })
        XCTAssertTrue(profiles.contains { $0.scene != nil })
        XCTAssertEqual(Set(profiles.compactMap { $0.bridge?.framework }), [.reactNative, .flutter, .expo])
        XCTAssertTrue(table.cases.contains { $0.scene })
    }

    /// The completion handler runs exactly once whenever the delegate received the tap, and the
    /// work happens in the §5 order on every path.
    func testCompletionHandlerRunsExactlyOnceAndStepsKeepTheSpecOrder() async throws {
        let table = try loadTable()
        let order: [TapStep] = [.willPresent, .openedMetricQueued, .imageFilesDeleted, .deepLinkHandled,
                                .otherDelegatesCalled, .completionHandlerCalled]
        var delegatePaths = 0, otherPaths = 0
        for r in await table.run(app: fallbackApp(), transport: EventPipelineScriptedTransport()) {
            // From the case's inputs (§5, §6), not from the outcome under test: the delegate gets
            // the tap — and with it the one completion handler — unless the SDK keeps its own push
            // off the screen in the foreground, or a cold start hands the tap to the launch options.
            let c = r.testCase, profile = try XCTUnwrap(table.profiles[c.profile], c.name)
            let hiddenInForeground = c.state == .foreground && c.cio && !profile.showInForeground
            let viaLaunchOptions = c.state == .cold && profile.coldStartTaps == .launchOptions
            let expected = hiddenInForeground || viaLaunchOptions ? 0 : 1
            if expected == 1 { delegatePaths += 1 } else { otherPaths += 1 }
            XCTAssertEqual(r.outcome.completionHandlerCalls, expected, r.testCase.name)
            let positions = r.outcome.steps.map { order.firstIndex(of: $0)! }
            XCTAssertEqual(positions, positions.sorted(), "\(r.testCase.name): \(r.outcome.steps)")
            XCTAssertEqual(Set(r.outcome.steps).count, r.outcome.steps.count, "\(r.testCase.name): a step ran twice")
        }
        XCTAssertGreaterThan(delegatePaths, 0, "the table has taps the delegate receives")
        XCTAssertGreaterThan(otherPaths, 0, "the table has taps without a completion handler")
    }

    func testAnExpectationThatDoesNotHoldIsReported() async throws {
        var table = try loadTable()
        let json = #"{"tier": 1, "destination": "browser", "metric": "none", "diagnostics": ["scheme-not-registered"]}"#
        table.cases[0].expect = try JSONDecoder().decode(TapCaseTable.Expectation.self, from: Data(json.utf8))
        let results = await table.run(app: fallbackApp(), transport: EventPipelineScriptedTransport())
        XCTAssertEqual(results[0].mismatches.count, 4, results[0].mismatches.joined(separator: "; "))
    }

    func testAnUnknownProfileNameIsReportedWithItsPointer() throws {
        var table = try loadTable()
        table.cases[3].profile = "nope"
        XCTAssertThrowsError(try table.check(source: "cases.json")) { error in
            XCTAssertTrue("\(error)".contains("/cases/3/profile"), "\(error)")
        }
    }
}

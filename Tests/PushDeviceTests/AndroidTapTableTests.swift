import Foundation
import PushCore
import PushDevice
import TestSupport
import XCTest

/// The Android tap table (payloads/taps/android-cases.json, docs/specs/android-side.md §5):
/// every case's route, target, task stack, delivery, cold start, opened count and diagnostics.
final class AndroidTapTableTests: XCTestCase {
    func table() throws -> AndroidTapCaseTable {
        try AndroidTapCaseTable.load(path: Fixtures.path("payloads/taps/android-cases.json"), appBase: Fixtures.root)
    }

    func testEveryCaseOfTheTableHolds() throws {
        let table = try table()
        XCTAssertGreaterThanOrEqual(table.cases.count, 30)
        for c in table.cases {
            let (_, wrong) = AndroidTapCaseTable.run(c)
            XCTAssertEqual(wrong, [], c.name)
        }
    }

    func testTheTableCoversEveryClickBehaviourTrampolinesAndTheTrayPath() throws {
        let table = try table()
        for behaviour in PushClickBehavior.allCases {
            XCTAssertTrue(table.cases.contains { $0.profile.pushClickBehavior == behaviour }, behaviour.rawValue)
        }
        XCTAssertTrue(table.cases.contains { AndroidTapCaseTable.run($0).0.route == .blocked })
        XCTAssertTrue(table.cases.contains { $0.tap.drawnBy == .fcmSDK })
        for route in [AndroidTapRoute.callback, .hostApp, .otherApp, .launcher] {
            XCTAssertTrue(table.cases.contains { AndroidTapCaseTable.run($0).0.route == route }, route.rawValue)
        }
    }

    func testAWrongExpectationIsReported() throws {
        var c = try XCTUnwrap(table().cases.first)
        c.expect["route"] = "launcher"
        c.expect["stack"] = ["Nope"]
        let (_, wrong) = AndroidTapCaseTable.run(c)
        XCTAssertEqual(wrong.count, 2)
        XCTAssertTrue(wrong[0].hasPrefix("route: expected \"launcher\", got \"host-app\""), wrong[0])
    }

    func testABadProfileOverrideNamesTheCaseAndPointer() throws {
        let dir = Fixtures.temporaryDirectory("android-taps")
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("cases.json")
        try Data(#"{"app":"payloads/apps/android-demo.json","cases":[{"name":"x","profile":{"pushClickBehavior":"RESTART"},"tap":{},"expect":{}}]}"#.utf8).write(to: file)
        XCTAssertThrowsError(try AndroidTapCaseTable.load(path: file.path, appBase: Fixtures.root)) { error in
            XCTAssertTrue("\(error)".contains("/cases/0/profile: /pushClickBehavior: must be one of: ACTIVITY_PREVENT_RESTART"), "\(error)")
        }
    }
}

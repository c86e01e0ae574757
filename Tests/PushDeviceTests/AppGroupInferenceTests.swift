import PushDevice
import TestSupport
import XCTest

final class AppGroupInferenceTests: XCTestCase {
    func testEachOfTheFourSuffixesIsStripped() {
        for suffix in [".richpush", ".NotificationServiceExtension", ".NotificationService", ".richPush"] {
            XCTAssertEqual(AppGroupIdentifier.infer(fromBundleID: "com.acme.shop" + suffix).groupID, "group.com.acme.shop.cio", suffix)
        }
    }

    func testSuffixComparisonIsCaseSensitive() {
        XCTAssertEqual(AppGroupIdentifier.infer(fromBundleID: "com.acme.shop.RichPush").groupID, "group.com.acme.shop.RichPush.cio")
    }

    func testWrongSuffixLeavesTheExtensionWithoutAContainer() throws {
        let p = try AppProfile.load(path: Fixtures.path("payloads/apps/misconfigured-suffix.json"))
        XCTAssertFalse(p.appGroup(for: .notificationServiceExtension).containerAvailable)
        XCTAssertTrue(p.appGroup(for: .app).containerAvailable)
        let good = try AppProfile.load(path: Fixtures.path("payloads/apps/demo.json"))
        XCTAssertTrue(good.appGroup(for: .notificationServiceExtension).containerAvailable)
        XCTAssertEqual(good.appGroup(for: .notificationServiceExtension).groupID, "group.io.pushlab.demo.cio")
    }

    func testConfiguredGroupIDIsUsedAsIs() {
        let p = AppProfile(bundleID: "a.b", extensionBundleID: "a.b.Whatever", appGroupID: "group.custom", cdpAPIKey: "k")
        XCTAssertEqual(p.appGroup(for: .notificationServiceExtension).groupID, "group.custom")
        XCTAssertTrue(p.appGroup(for: .notificationServiceExtension).containerAvailable)
    }
}

import Foundation
@testable import PushDevice
import TestSupport
import XCTest

/// The `deepLinks` section of an app profile: every sample loads, typos are errors that name
/// their JSON pointer.
final class DeepLinkProfileDecodingTests: XCTestCase {
    func profile(deepLinks: String) -> String {
        #"{"bundleId": "io.pushlab.demo", "extensionBundleId": "io.pushlab.demo.richpush", "cdpApiKey": "k", "deepLinks": \#(deepLinks)}"#
    }

    func testEverySampleProfileHasADeepLinkSection() throws {
        for name in ["demo", "improved", "legacy", "misconfigured-suffix"] {
            let p = try AppProfile.load(path: Fixtures.path("payloads/apps/\(name).json"))
            XCTAssertEqual(p.deepLinks?.urlSchemes, ["pushlab"], name)
        }
    }

    func testAMisspelledHandlerIsAnErrorAtItsPointer() {
        let json = profile(deepLinks: #"{"appDelegate": {"continueUserActivty": {"accepts": ["*"]}}}"#)
        XCTAssertThrowsError(try AppProfile.decode(Array(json.utf8), source: "app.json")) { error in
            XCTAssertTrue("\(error)".contains("/deepLinks/appDelegate/continueUserActivty"), "\(error)")
        }
    }

    func testAnUnknownFrameworkListsTheAllowedOnes() {
        let json = profile(deepLinks: #"{"bridge": {"framework": "reactnative"}}"#)
        XCTAssertThrowsError(try AppProfile.decode(Array(json.utf8), source: "app.json")) { error in
            XCTAssertTrue("\(error)".contains("/deepLinks/bridge/framework"), "\(error)")
            XCTAssertTrue("\(error)".contains("react-native"), "\(error)")
        }
    }

    func testDefaultsWhenKeysAreAbsent() throws {
        let p = try AppProfile.decode(Array(profile(deepLinks: "{}").utf8))
        let d = try XCTUnwrap(p.deepLinks)
        XCTAssertNil(d.callback)
        XCTAssertNil(d.scene)
        XCTAssertEqual(d.coldStartTaps, .delegate)
        XCTAssertFalse(d.handlesLaunchOptions)
        XCTAssertTrue(d.showInForeground)
    }

    func testRoundTripsThroughJSON() throws {
        let p = try AppProfile.load(path: Fixtures.path("payloads/apps/improved.json"))
        let data = try JSONEncoder().encode(p)
        XCTAssertEqual(try AppProfile.decode(Array(data)), p)
    }
}

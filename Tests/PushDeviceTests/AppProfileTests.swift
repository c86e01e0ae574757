import Foundation
import PushDevice
import TestSupport
import XCTest

final class AppProfileTests: XCTestCase {
    private func profile(_ json: String) throws -> AppProfile {
        try AppProfile.decode(Array(json.utf8), source: "test.json")
    }

    func testEverySampleProfileLoads() throws {
        for name in ["demo", "misconfigured-suffix", "legacy", "improved"] {
            XCTAssertNoThrow(try AppProfile.load(path: Fixtures.path("payloads/apps/\(name).json")), name)
        }
    }

    func testDefaultsFollowTheReferenceSDK() throws {
        let p = try profile(#"{"bundleId":"a.b","extensionBundleId":"a.b.richpush","cdpApiKey":"k"}"#)
        XCTAssertEqual(p.sdkMode, .cio4)
        XCTAssertEqual(p.appGroupStore, .cio)
        XCTAssertTrue(p.autoTrackPushEvents)
        XCTAssertFalse(p.allowArbitraryLoads)
        XCTAssertEqual(p.region, .us)
    }

    func testUnknownKeyIsRejectedWithItsPointer() {
        XCTAssertThrowsError(try profile(#"{"bundleId":"a","extensionBundleId":"b","cdpApiKey":"k","autoTrackPushEvent":false}"#)) { error in
            guard case AppProfileError.invalidValue(_, let pointer, _) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(pointer, "/autoTrackPushEvent")
        }
    }

    func testMissingBundleIDNamesThePointer() {
        XCTAssertThrowsError(try profile(#"{"extensionBundleId":"b","cdpApiKey":"k"}"#)) { error in
            guard case AppProfileError.missingField(_, let pointer, _) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(pointer, "/bundleId")
        }
    }

    func testUnknownSDKModeListsTheAllowedValues() {
        XCTAssertThrowsError(try profile(#"{"bundleId":"a","extensionBundleId":"b","cdpApiKey":"k","sdkMode":"cio-5"}"#)) { error in
            XCTAssertTrue("\(error)".contains("cio-4, cio-legacy, improved"), "\(error)")
            XCTAssertTrue("\(error)".contains("/sdkMode"), "\(error)")
        }
    }

    func testLegacyModeNeedsSiteIDAndAPIKey() {
        XCTAssertThrowsError(try profile(#"{"bundleId":"a","extensionBundleId":"b","sdkMode":"cio-legacy","siteId":"s"}"#)) { error in
            guard case AppProfileError.missingField(_, let pointer, _) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(pointer, "/apiKey")
        }
    }

    func testMetricsEndpointByRegionAndCustomBase() throws {
        let us = try profile(#"{"bundleId":"a","extensionBundleId":"b","cdpApiKey":"key"}"#).metricsEndpoint
        XCTAssertEqual(us.url(.track), "https://cdp.customer.io/v1/track")
        XCTAssertEqual(us.url(.batch), "https://cdp.customer.io/v1/b")
        XCTAssertEqual(us.authorization(for: .track), "Basic " + Data("key:".utf8).base64EncodedString())
        let eu = try profile(#"{"bundleId":"a","extensionBundleId":"b","cdpApiKey":"key","region":"eu"}"#).metricsEndpoint
        XCTAssertEqual(eu.url(.track), "https://cdp-eu.customer.io/v1/track")
        let custom = try profile(#"{"bundleId":"a","extensionBundleId":"b","cdpApiKey":"k","metricsBaseURL":"https://127.0.0.1:9443/"}"#).metricsEndpoint
        XCTAssertEqual(custom.url(.track), "https://127.0.0.1:9443/v1/track")
        let legacyRegion = try profile(#"{"bundleId":"a","extensionBundleId":"b","cdpApiKey":"k","siteId":"s","apiKey":"x"}"#).metricsEndpoint
        XCTAssertEqual(legacyRegion.url(.legacyEvents), "https://track-sdk.customer.io/push/events")
        // The sample profiles report to the lab's local collector (pushlab serve), never to Customer.io.
        let legacy = try AppProfile.load(path: Fixtures.path("payloads/apps/legacy.json")).metricsEndpoint
        XCTAssertEqual(legacy.url(.legacyEvents), "https://localhost:8443/push/events")
        XCTAssertEqual(legacy.authorization(for: .legacyEvents),
                       "Basic " + Data("pushlab-site:pushlab-legacy-api-key".utf8).base64EncodedString())
    }

    func testNSEUserAgentCarriesTheExtensionBundle() throws {
        let p = try AppProfile.load(path: Fixtures.path("payloads/apps/demo.json"))
        XCTAssertEqual(p.nseUserAgent, "Customer.io NSE Client/4.7.5 (iPhone15,2; iOS 17.4) io.pushlab.demo.richpush/1.0.0")
    }
}

import Foundation
import PushCore
import PushDevice
import TestSupport
import XCTest

/// The Retainza app profile (docs/retainza.md) and its findings: every missing call is a
/// finding with the troubleshooting fix (docs/specs/retainza.md §10).
final class RetainzaAppProfileTests: XCTestCase {
    private func load(_ name: String) throws -> RetainzaAppProfile {
        try RetainzaAppProfile.load(path: Fixtures.root.appendingPathComponent("payloads/apps/\(name)").path)
    }

    func testTheDemoProfileDecodesWithTheSeedsDefaultsAndHasNoErrorFindings() throws {
        let p = try load("retainza-demo.json")
        XCTAssertEqual(p.maxQueuedEvents, 100)
        XCTAssertEqual(p.sessionTimeoutMs, 1_800_000)
        XCTAssertEqual(p.storage, .userDefaults)
        XCTAssertFalse(p.requireConsent)
        XCTAssertTrue(p.baseURL.hasSuffix("/v1"))
        XCTAssertFalse(p.calls(.handleDeviceToken))
        let findings = RetainzaFinding.audit(p)
        XCTAssertEqual(findings.filter { $0.severity != .info }.map(\.code), [])
        XCTAssertEqual(findings.map(\.code), ["key-environment"])
        XCTAssertTrue(findings[0].symptom.contains("Sandbox"))
        XCTAssertTrue(RetainzaAppProfile.isRetainza(try Data(contentsOf: Fixtures.root.appendingPathComponent("payloads/apps/retainza-demo.json"))))
    }

    func testDefaultsWhenKeysAreAbsent() throws {
        let p = try RetainzaAppProfile.decode(Data(#"{"sdkMode":"retainza","publicKey":"pk_live_x"}"#.utf8), source: "app.json")
        XCTAssertEqual(p.baseURL, "https://api.retainza.com/v1")
        XCTAssertEqual(p.maxQueuedEvents, 100)
        XCTAssertEqual(p.sessionTimeoutMs, 30 * 60 * 1000)
        XCTAssertEqual(p.storage, .userDefaults)
        XCTAssertFalse(p.requireConsent)
        XCTAssertTrue(RetainzaFinding.audit(p).first?.symptom.contains("Production") == true)
    }

    func testBadInputNamesTheJSONPointer() {
        let cases: [(String, String)] = [
            (#"{"sdkMode":"retainza","publicKey":"pk_test_x","maxQueuedEvent":5}"#, "/maxQueuedEvent: unknown key"),
            (#"{"sdkMode":"retainza"}"#, "/publicKey is missing"),
            (#"{"sdkMode":"retainza","publicKey":"pk_test_x","storage":"keychain"}"#, "/storage: must be one of: userDefaults, memory"),
            (#"{"sdkMode":"retainza","publicKey":"pk_test_x","calls":["handleOpen","handleLaunch"]}"#, "/calls/1: must be one of"),
            (#"{"sdkMode":"retainza","publicKey":"pk_test_x","maxQueuedEvents":0}"#, "/maxQueuedEvents: must be in 1…100000"),
            (#"{"sdkMode":"retainza","publicKey":"pk_test_x","requireConsent":"yes"}"#, "/requireConsent: expected true or false"),
            (#"{"sdkMode":"retainza","publicKey":"pk_test_x","fcmToken":"7a1c3e5f7a9b1c3d5e7f9a1b3c5d7e9f1a3b5c7d9e1f3a5b7c9d1e3f5a7b9c1d"}"#, "/fcmToken: this is an APNs device token"),
            (#"{"sdkMode":"retainza","publicKey":"pk_test_x","routes":{"track":"events"}}"#, "/routes/track: a route path starts with '/'"),
            (#"{"sdkMode":"cio-4","publicKey":"pk_test_x"}"#, "/sdkMode: must be \"retainza\""),
        ]
        for (json, expected) in cases {
            XCTAssertThrowsError(try RetainzaAppProfile.decode(Data(json.utf8), source: "app.json")) { error in
                XCTAssertTrue("\(error)".contains("app.json: \(expected)") || "\(error)".contains(expected), "\(json) → \(error)")
            }
        }
    }

    func testEveryMissingCallIsAFindingWithTheTroubleshootingFix() throws {
        let expected: [(String, String, String)] = [
            ("retainza/secret-key.json", "secret-key", "only pk_ keys belong in an app"),
            ("retainza/device-token.json", "deprecated-handleDeviceToken", "Messaging.messaging().apnsToken = token"),
            ("retainza/device-token.json", "missing-handleFCMToken", "handleFCMToken"),
            ("retainza/no-user.json", "missing-user-id", "after identify"),
            ("retainza/no-launch-options.json", "missing-handleLaunchOptions", "handleLaunchOptions(launchOptions)"),
            ("retainza/no-handle-open.json", "missing-handleOpen", "handleOpen(response)"),
            ("retainza/memory-storage.json", "memory-only-storage", "UserDefaultsStorage()"),
            ("retainza/no-sessions.json", "missing-sessions", "startSession()"),
            ("retainza/no-consent.json", "consent-not-set", "setConsent(analytics:marketing:) on every launch"),
        ]
        for (file, code, fix) in expected {
            let finding = try XCTUnwrap(RetainzaFinding.audit(try load(file)).first { $0.code == code }, "\(file) lacks \(code)")
            XCTAssertTrue(finding.fix.contains(fix), "\(code): \(finding.fix)")
        }
        var p = try load("retainza-demo.json")
        for call in [RetainzaIntegrationCall.handleForeground, .handleBackground, .messagingAPNsToken] {
            p.calls.remove(call)
        }
        let codes = RetainzaFinding.audit(p).map(\.code)
        XCTAssertTrue(codes.contains("missing-handleForeground"))
        XCTAssertTrue(codes.contains("missing-handleBackground"))
        XCTAssertTrue(codes.contains("missing-Messaging.apnsToken"))
    }
}

import XCTest
import PushCore

/// docs/specs/apns.md "Response" and "Retry policy", line by line.
final class APNsReasonTableTests: XCTestCase {
    /// The spec's table, copied here by hand so a drift in either shows up.
    static let specTable: [Int: [String]] = [
        400: ["BadCollapseId", "BadDeviceToken", "BadExpirationDate", "BadMessageId", "BadPriority", "BadTopic",
              "DeviceTokenNotForTopic", "DuplicateHeaders", "IdleTimeout", "InvalidPushType", "MissingDeviceToken",
              "MissingTopic", "PayloadEmpty", "TopicDisallowed"],
        403: ["BadCertificate", "BadCertificateEnvironment", "ExpiredProviderToken", "Forbidden", "InvalidProviderToken",
              "MissingProviderToken", "UnrelatedKeyIdInToken", "BadEnvironmentKeyIdInToken", "BadEnvironmentKeyInToken"],
        404: ["BadPath"],
        405: ["MethodNotAllowed"],
        410: ["Unregistered", "ExpiredToken"],
        413: ["PayloadTooLarge"],
        429: ["TooManyProviderTokenUpdates", "TooManyRequests"],
        500: ["InternalServerError"],
        503: ["ServiceUnavailable", "Shutdown"],
    ]

    func testEveryReasonOfTheSpecTableIsKnownWithItsStatus() {
        var count = 0
        for (status, names) in Self.specTable {
            for name in names {
                let reason = APNsReason(rawValue: name)
                XCTAssertTrue(reason.isKnown, name)
                XCTAssertEqual(reason.rawValue, name)
                XCTAssertEqual(reason.status, status, name)
                XCTAssertFalse(reason.fix.isEmpty, name)
                count += 1
            }
        }
        XCTAssertEqual(APNsReason.allKnown.count, count)
    }

    func testUnknownReasonIsKeptVerbatim() {
        let reason = APNsReason(rawValue: "BrandNewReason2027")
        XCTAssertEqual(reason, .other("BrandNewReason2027"))
        XCTAssertEqual(reason.rawValue, "BrandNewReason2027")
        XCTAssertNil(reason.status)
        XCTAssertTrue(reason.fix.contains("BrandNewReason2027"))
        XCTAssertEqual(reason.retryability(status: 400), .never)
        XCTAssertEqual(reason.retryability(status: 502), .withBackoff)
    }

    func testNeverRetryListIsNeverRetried() {
        for name in ["BadDeviceToken", "DeviceTokenNotForTopic", "Forbidden", "ExpiredToken", "Unregistered", "PayloadTooLarge",
                     "BadTopic", "MissingTopic", "InvalidPushType", "BadPriority", "InvalidProviderToken", "BadCollapseId"] {
            XCTAssertEqual(APNsReason(rawValue: name).retryability, .never, name)
        }
    }

    func testTransientReasonsAreRetried() {
        XCTAssertEqual(APNsReason.internalServerError.retryability, .withBackoff)
        XCTAssertEqual(APNsReason.serviceUnavailable.retryability, .withBackoff)
        XCTAssertEqual(APNsReason.shutdown.retryability, .withBackoff)
        XCTAssertEqual(APNsReason.tooManyRequests.retryability, .afterDelay)
        XCTAssertEqual(APNsReason.tooManyProviderTokenUpdates.retryability, .afterDelay)
        XCTAssertEqual(APNsReason.expiredProviderToken.retryability, .renewCredentialOnce)
    }

    func testUnregisteredAndBadDeviceTokenArePruned() {
        XCTAssertTrue(APNsReason.unregistered.prunesToken)
        XCTAssertTrue(APNsReason.badDeviceToken.prunesToken)
        XCTAssertFalse(APNsReason.badTopic.prunesToken)
    }

    func testErrorBodyRoundTripsWithTimestamp() throws {
        let body = APNsErrorBody(reason: .unregistered, timestamp: 1_767_225_600_000)
        XCTAssertEqual(String(decoding: body.json, as: UTF8.self), #"{"reason":"Unregistered","timestamp":1767225600000}"#)
        XCTAssertEqual(APNsErrorBody(json: body.json), body)
        XCTAssertEqual(APNsErrorBody(json: Array(#"{"reason":"Weird\"One"}"#.utf8))?.reason, .other("Weird\"One"))
        XCTAssertNil(APNsErrorBody(json: Array("not json".utf8)))
    }

    func testPushTypeTopicSuffixes() {
        XCTAssertEqual(APNsPushType.voip.topic(forBundleID: "io.x"), "io.x.voip")
        XCTAssertEqual(APNsPushType.voip.topic(forBundleID: "io.x.voip"), "io.x.voip")
        XCTAssertEqual(APNsPushType.liveactivity.topic(forBundleID: "io.x"), "io.x.push-type.liveactivity")
        XCTAssertEqual(APNsPushType.location.topic(forBundleID: "io.x"), "io.x.location-query")
        XCTAssertEqual(APNsPushType.pushtotalk.topic(forBundleID: "io.x"), "io.x.voip-ptt")
        XCTAssertEqual(APNsPushType.fileprovider.topic(forBundleID: "io.x"), "io.x.pushkit.fileprovider")
        XCTAssertEqual(APNsPushType.complication.topic(forBundleID: "io.x"), "io.x.complication")
        XCTAssertEqual(APNsPushType.widgets.topic(forBundleID: "io.x"), "io.x.push-type.widgets")
        XCTAssertEqual(APNsPushType.controls.topic(forBundleID: "io.x"), "io.x.push-type.controls")
        XCTAssertEqual(APNsPushType.alert.topic(forBundleID: "io.x"), "io.x")
        XCTAssertEqual(APNsPushType.background.topic(forBundleID: "io.x"), "io.x")
    }

    func testPushTypeIsInferredFromThePayload() throws {
        func infer(_ text: String) throws -> APNsPushType {
            APNsPushType.inferred(from: try JSONDocument.parse(Array(text.utf8)).root)
        }
        XCTAssertEqual(try infer(#"{"aps":{"alert":"hi"}}"#), .alert)
        XCTAssertEqual(try infer(#"{"aps":{"content-available":1}}"#), .background)
        XCTAssertEqual(try infer(#"{"aps":{"content-available":1,"badge":1}}"#), .alert)
        XCTAssertEqual(try infer(#"{"aps":{"event":"update","content-state":{},"timestamp":1}}"#), .liveactivity)
        XCTAssertEqual(APNsPushType.background.defaultPriority.rawValue, 5)
        XCTAssertEqual(APNsPushType.alert.defaultPriority.rawValue, 10)
    }
}

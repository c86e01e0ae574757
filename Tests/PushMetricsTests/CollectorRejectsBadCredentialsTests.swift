import PushMetrics
import XCTest

/// 401 with a JSON reason for missing, malformed or unknown credentials, on every route;
/// refused requests are recorded, never stored as metrics.
final class CollectorRejectsBadCredentialsTests: XCTestCase {
    let track = #"{"anonymousId":"d1","event":"Report Delivery Event","properties":{"recipient":"t","metric":"delivered","deliveryId":"d1"}}"#
    let legacy = #"{"delivery_id":"d1","device_id":"tok","event":"delivered","timestamp":1775126768}"#

    func testTrackWithoutAuthorizationIs401() async throws {
        let h = try CollectorHarness()
        let (status, json) = try await h.send("/v1/track", track, authorization: nil)
        XCTAssertEqual(status, 401)
        XCTAssertEqual(json["error"] as? String, "missing_authorization")
        XCTAssertEqual(json["reason"] as? String, "no Authorization header on /v1/track")
        XCTAssertNotNil(json["fix"])
        XCTAssertEqual(try h.storedRows("SELECT COUNT(*) FROM metrics"), [["0"]])
        XCTAssertEqual(try h.storedRows("SELECT status, error FROM metric_requests"), [["401", "missing_authorization"]])
    }

    func testTrackWithWrongCDPKeyIs401() async throws {
        let h = try CollectorHarness()
        let (status, json) = try await h.send("/v1/track", track, authorization: CollectorCredentials.basicHeader(user: "not-the-key"))
        XCTAssertEqual(status, 401)
        XCTAssertEqual(json["error"] as? String, "unknown_credentials")
        XCTAssertEqual(json["reason"] as? String, "unknown CDP API key")
    }

    func testBearerSchemeIsMalformedAuthorization() async throws {
        let h = try CollectorHarness()
        let (status, json) = try await h.send("/v1/track", track, authorization: "Bearer abc.def")
        XCTAssertEqual(status, 401)
        XCTAssertEqual(json["error"] as? String, "malformed_authorization")
    }

    func testBasicWithoutColonIsMalformedAuthorization() async throws {
        let h = try CollectorHarness()
        let (status, json) = try await h.send("/v1/track", track, authorization: "Basic " + Data("nocolon".utf8).base64EncodedString())
        XCTAssertEqual(status, 401)
        XCTAssertEqual(json["reason"] as? String, "Authorization is not valid Basic credentials: the decoded credentials have no ':'")
    }

    func testBatchWithWrongWriteKeyAndNoHeaderIs401() async throws {
        let h = try CollectorHarness()
        let body = #"{"batch":[{"type":"track","event":"Report Delivery Event","properties":{"metric":"opened","deliveryId":"d1","recipient":"t"},"anonymousId":"a"}],"writeKey":"wrong"}"#
        let (status, json) = try await h.send("/v1/b", body, authorization: nil)
        XCTAssertEqual(status, 401)
        XCTAssertEqual(json["error"] as? String, "unknown_credentials")
    }

    func testBatchWithoutHeaderOrWriteKeyIs401() async throws {
        let h = try CollectorHarness()
        let body = #"{"batch":[{"type":"track","event":"Report Delivery Event","properties":{"metric":"opened","deliveryId":"d1","recipient":"t"},"anonymousId":"a"}]}"#
        let (status, json) = try await h.send("/v1/b", body, authorization: nil)
        XCTAssertEqual(status, 401)
        XCTAssertEqual(json["error"] as? String, "missing_authorization")
    }

    func testLegacyWithWrongAPIKeyIs401() async throws {
        let h = try CollectorHarness()
        let (status, json) = try await h.send("/push/events", legacy,
                                              authorization: CollectorCredentials.basicHeader(user: CollectorHarness.siteID, password: "nope"))
        XCTAssertEqual(status, 401)
        XCTAssertEqual(json["reason"] as? String, "unknown site id / api key")
    }

    func testLegacyRouteRefusesACDPKey() async throws {
        let h = try CollectorHarness()
        let (status, _) = try await h.send("/push/events", legacy, authorization: CollectorHarness.cdpAuthorization)
        XCTAssertEqual(status, 401)
    }

    func testCredentialsAreCheckedBeforeTheBody() async throws {
        let h = try CollectorHarness()
        let (status, _) = try await h.send("/v1/track", "not json", authorization: nil)
        XCTAssertEqual(status, 401)
    }

    func testOpenCollectorStillRequiresAHeader() async throws {
        let h = try CollectorHarness(credentials: CollectorCredentials())
        let (anyKey, _) = try await h.send("/v1/track", track, authorization: CollectorCredentials.basicHeader(user: "whatever"))
        XCTAssertEqual(anyKey, 200)
        let (none, _) = try await h.send("/v1/track", track, authorization: nil)
        XCTAssertEqual(none, 401)
    }

    /// The collector remembers the header a connection last passed with (one comparison instead
    /// of a decode per request): on one connection, a good header, then bad ones, then keys of
    /// the other family must each still get their own verdict.
    func testEveryRequestOnOneConnectionIsCheckedOnItsOwn() async throws {
        let h = try CollectorHarness()
        let cdp = CollectorHarness.cdpAuthorization, legacyHeader = CollectorHarness.legacyAuthorization
        let cases: [(String, String, String, Int, String?)] = [
            ("/v1/track", track, cdp, 200, nil),
            ("/v1/track", track, CollectorCredentials.basicHeader(user: "not-the-key"), 401, "unknown_credentials"),
            ("/v1/track", track, cdp + "x", 401, "malformed_authorization"),
            ("/v1/track", track, legacyHeader, 401, "unknown_credentials"),
            ("/v1/track", track, cdp, 200, nil),
            ("/push/events", legacy, cdp, 401, "unknown_credentials"),
            ("/push/events", legacy, legacyHeader, 200, nil),
            ("/push/events", legacy, CollectorCredentials.basicHeader(user: CollectorHarness.siteID, password: "wrong"), 401, "unknown_credentials"),
            ("/push/events", legacy, legacyHeader, 200, nil),
            ("/v1/track", track, legacyHeader, 401, "unknown_credentials"),
        ]
        for (i, (path, body, header, status, error)) in cases.enumerated() {
            let (got, json) = try await h.send(path, body, authorization: header)
            XCTAssertEqual(got, status, "case \(i)")
            XCTAssertEqual(json["error"] as? String, error, "case \(i)")
        }
    }
}

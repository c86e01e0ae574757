import Foundation
import PushAuth
import PushCore
import TestSupport
import XCTest
@testable import PushGateway

/// The OAuth and FCM HTTP v1 routes (docs/specs/fcm.md), one test per error code, sent by the real curl.
final class FCMRouteTests: XCTestCase {
    var h: GatewayHarness!
    var account: ServiceAccount!
    static let fcmToken = "cAbCdEfGhIjKlMnOpQrStU:APA91b" + String(repeating: "Zx9_-Qw3", count: 17)

    override func setUp() async throws {
        account = try ServiceAccount.load(path: Fixtures.fcmServiceAccount)
        h = try makeHarness()
    }
    override func tearDown() async throws { await h.stop() }

    private func makeHarness(devices: [EmulatedDevice] = [], configure: (inout GatewayConfiguration) -> Void = { _ in }) throws -> GatewayHarness {
        try GatewayHarness(devices: devices, configure: configure)
    }

    private func assertion(scope: String? = "https://www.googleapis.com/auth/firebase.messaging", lifetime: Int64 = 3600,
                           key: PrivateKey? = nil, iss: String? = nil) throws -> String {
        let now = Int64(h.clock.now.timeIntervalSince1970)
        return try JWT.sign(header: JWTHeader(alg: .rs256, kid: account.privateKeyID, typ: "JWT"),
                            claims: JWTClaims(iss: iss ?? account.clientEmail, aud: ["\(h.googleBase)/token"], scope: scope, iat: now, exp: now + lifetime),
                            key: key ?? account.privateKey)
    }

    private func tokenRequest(_ assertion: String, grant: String = "urn:ietf:params:oauth:grant-type:jwt-bearer") -> CurlRequest {
        CurlRequest(url: "\(h.googleBase)/token", headers: [("content-type", "application/x-www-form-urlencoded")],
                    body: "grant_type=\(grant.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)&assertion=\(assertion)")
    }

    private func accessToken() throws -> String {
        let r = try Curl.one(tokenRequest(try assertion()))
        XCTAssertEqual(r.status, 200, r.body)
        return try XCTUnwrap(r.json["access_token"] as? String)
    }

    private func send(_ body: String, project: String = Fixtures.fcmProjectID, bearer: String? = nil) throws -> CurlResponse {
        var headers = [("content-type", "application/json")]
        let token = try bearer ?? accessToken()
        if !token.isEmpty { headers.append(("authorization", "Bearer " + token)) }
        return try Curl.one(CurlRequest(url: "\(h.googleBase)/v1/projects/\(project)/messages:send", headers: headers, body: body))
    }

    private func message(token: String = FCMRouteTests.fcmToken, extra: String = "") -> String {
        #"{"message":{"token":"\#(token)","notification":{"title":"Hi","body":"There"},"apns":{"payload":{"aps":{"mutable-content":1},"CIO-Delivery-ID":"dlv-1","CIO-Delivery-Token":"tok-1"}}\#(extra)}}"#
    }

    private func errorCode(_ r: CurlResponse) -> String? {
        let error = r.json["error"] as? [String: Any]
        let details = error?["details"] as? [[String: Any]] ?? []
        return details.first { ($0["@type"] as? String)?.hasSuffix("FcmError") == true }?["errorCode"] as? String
    }

    // MARK: OAuth

    func testTokenExchangeIssuesAnHourLongBearerToken() throws {
        let r = try Curl.one(tokenRequest(try assertion()))
        XCTAssertEqual(r.status, 200)
        XCTAssertEqual(r.json["token_type"] as? String, "Bearer")
        XCTAssertEqual((r.json["expires_in"] as? NSNumber)?.intValue, 3599)
    }
    func testWrongGrantTypeIsUnsupportedGrantType() throws {
        let r = try Curl.one(tokenRequest(try assertion(), grant: "client_credentials"))
        XCTAssertEqual(r.status, 400)
        XCTAssertEqual(r.json["error"] as? String, "unsupported_grant_type")
    }
    func testAssertionSignedByAnotherKeyIsInvalidGrant() throws {
        let r = try Curl.one(tokenRequest(try assertion(key: .generateRSA())))
        XCTAssertEqual(r.status, 400)
        XCTAssertEqual(r.json["error"] as? String, "invalid_grant")
        XCTAssertEqual(r.json["error_description"] as? String, "Invalid JWT Signature.")
    }
    func testAssertionLongerThanAnHourIsInvalidGrant() throws {
        let r = try Curl.one(tokenRequest(try assertion(lifetime: 7200)))
        XCTAssertEqual(r.json["error"] as? String, "invalid_grant")
    }
    func testAssertionWithoutScopeIsInvalidScope() throws {
        let r = try Curl.one(tokenRequest(try assertion(scope: nil)))
        XCTAssertEqual(r.json["error"] as? String, "invalid_scope")
    }
    func testUnknownAccountIsInvalidGrant() throws {
        let r = try Curl.one(tokenRequest(try assertion(iss: "nobody@example.iam.gserviceaccount.com")))
        XCTAssertEqual(r.json["error"] as? String, "invalid_grant")
    }

    // MARK: messages:send

    func testAcceptedMessageReturnsNameAndDeliversTheAPNsPayload() throws {
        let r = try send(message())
        XCTAssertEqual(r.status, 200, r.body)
        let name = try XCTUnwrap(r.json["name"] as? String)
        XCTAssertTrue(name.hasPrefix("projects/pushlab-dev/messages/0:"), name)
        let delivered = try XCTUnwrap(h.sink.delivered.first)
        let payload = try JSONDocument.parse(delivered.payload).root
        XCTAssertEqual(payload["CIO-Delivery-ID"]?.stringValue, "dlv-1")
        XCTAssertEqual(payload["aps"]?["alert"]?["title"]?.stringValue, "Hi")
        XCTAssertEqual(delivered.deliveryID, "dlv-1")
    }
    /// An Android device gets the FCM message itself (its SDK reads `data`), never an APNs payload.
    func testMessageForAnAndroidDeviceIsHandedToTheAndroidSinkWithItsDataDeliveryID() async throws {
        await h.stop()
        h = try makeHarness(devices: [EmulatedDevice(name: "pixel", platform: .android, fcmToken: Self.fcmToken, bundleID: "io.pushlab.shop",
                                                     firebaseProject: Fixtures.fcmProjectID)])
        let body = #"{"message":{"token":"\#(Self.fcmToken)","data":{"title":"Hi","CIO-Delivery-ID":"and-1","CIO-Delivery-Token":"tok-1"},"android":{"priority":"high"}}}"#
        let r = try send(body)
        XCTAssertEqual(r.status, 200, r.body)
        XCTAssertTrue(h.sink.delivered.isEmpty, "no APNs payload for an Android phone")
        let delivered = try XCTUnwrap(h.sink.deliveredToAndroid.first)
        XCTAssertEqual(delivered.device?.name, "pixel")
        XCTAssertEqual(delivered.deliveryID, "and-1")
        XCTAssertEqual(try JSONDocument.parse(delivered.payload).root["message"]?["data"]?["title"]?.stringValue, "Hi")
        h.gateway.records.flush()
        XCTAssertEqual(try h.gateway.records.recent(limit: 1).first?.deliveryID, "and-1", "the record names the delivery for the report's sent count")
    }
    func testValidateOnlyChecksWithoutDelivering() throws {
        let r = try send(#"{"validate_only":true,"message":{"token":"\#(Self.fcmToken)"}}"#)
        XCTAssertEqual(r.status, 200, r.body)
        XCTAssertEqual(r.json["name"] as? String, "projects/pushlab-dev/messages/fake_message_id")
        XCTAssertTrue(h.sink.delivered.isEmpty)
    }
    func testMissingBearerIsUnauthenticated() throws {
        let r = try send(message(), bearer: "")
        XCTAssertEqual(r.status, 401)
        XCTAssertEqual((r.json["error"] as? [String: Any])?["status"] as? String, "UNAUTHENTICATED")
    }
    func testUnknownAccessTokenIsUnauthenticated() throws {
        XCTAssertEqual(try send(message(), bearer: "ya29.made-up").status, 401)
    }
    func testAnotherProjectIsPermissionDenied() throws {
        let r = try send(message(), project: "someone-else")
        XCTAssertEqual(r.status, 403)
        XCTAssertEqual((r.json["error"] as? [String: Any])?["status"] as? String, "PERMISSION_DENIED")
    }
    func testIntegerAPNsHeaderIsInvalidArgumentWithFieldViolation() throws {
        let body = #"{"message":{"token":"\#(Self.fcmToken)","apns":{"headers":{"apns-priority":10}}}}"#
        let r = try send(body)
        XCTAssertEqual(r.status, 400, r.body)
        XCTAssertEqual(errorCode(r), "INVALID_ARGUMENT")
        XCTAssertTrue(r.body.contains("fieldViolations"), r.body)
        XCTAssertTrue(r.body.contains("apns-priority"), r.body)
    }
    func testAPNsTokenGivenToFCMIsInvalidArgument() throws {
        let r = try send(message(token: String(repeating: "ab", count: 32)))
        XCTAssertEqual(r.status, 400)
        XCTAssertEqual(errorCode(r), "INVALID_ARGUMENT")
    }
    func testUnknownTokenIsUnregistered() async throws {
        await h.stop()
        h = try makeHarness(devices: [EmulatedDevice(name: "p", fcmToken: "x" + Self.fcmToken, bundleID: Fixtures.bundleID, firebaseProject: Fixtures.fcmProjectID)])
        let r = try send(message())
        XCTAssertEqual(r.status, 404)
        XCTAssertEqual(errorCode(r), "UNREGISTERED")
    }
    func testUnregisteredDeviceIsUnregistered() async throws {
        await h.stop()
        h = try makeHarness(devices: [EmulatedDevice(name: "p", fcmToken: Self.fcmToken, bundleID: Fixtures.bundleID,
                                                     firebaseProject: Fixtures.fcmProjectID, unregisteredSince: Date(timeIntervalSince1970: 1))])
        XCTAssertEqual(errorCode(try send(message())), "UNREGISTERED")
    }
    func testTokenOfAnotherProjectIsSenderIdMismatch() async throws {
        await h.stop()
        h = try makeHarness(devices: [EmulatedDevice(name: "p", fcmToken: Self.fcmToken, bundleID: Fixtures.bundleID, firebaseProject: "other-project")])
        let r = try send(message())
        XCTAssertEqual(r.status, 403)
        XCTAssertEqual(errorCode(r), "SENDER_ID_MISMATCH")
    }
    func testFaultPlanStatusesMapToFCMCodes() async throws {
        await h.stop()
        let route = "/v1/projects/{project}/messages:send"
        h = try makeHarness(configure: {
            $0.faultPlan = FaultPlan(seed: 7, rules: [
                FaultRule(route: route, requests: RequestWindow(lower: 1, upper: 1), outcome: .status(503, retryAfter: 3, reason: nil)),
                FaultRule(route: route, requests: RequestWindow(lower: 2, upper: 2), outcome: .status(429, retryAfter: 1, reason: nil)),
                FaultRule(route: route, requests: RequestWindow(lower: 3, upper: 3), outcome: .status(500, retryAfter: nil, reason: nil)),
                FaultRule(route: route, requests: RequestWindow(lower: 4, upper: 4), outcome: .status(401, retryAfter: nil, reason: "THIRD_PARTY_AUTH_ERROR")),
            ])
        })
        let token = try accessToken()
        let codes = try (0..<5).map { _ in try send(message(), bearer: token) }
        XCTAssertEqual(codes.map(\.status), [503, 429, 500, 401, 200])
        XCTAssertEqual(codes.prefix(4).map(errorCode), ["UNAVAILABLE", "QUOTA_EXCEEDED", "INTERNAL", "THIRD_PARTY_AUTH_ERROR"])
        XCTAssertEqual(codes[0].headers["retry-after"], "3")
    }
}

import XCTest
import PushCore
import PushHTTP
@testable import PushSend
import TestSupport

/// docs/specs/apns.md "Request": every header with its default, checked on the request the client builds.
final class APNsClientHeaderTests: XCTestCase {
    func client(_ transport: ScriptedTransport, retry: RetryPolicy = .none) -> APNsClient {
        APNsClient(endpoint: try! .custom("https://localhost:8443/ignored"), transport: transport,
                   credential: FixedCredential("header.claims.sig"), retry: retry, sleeper: RecordingSleeper())
    }
    static var ok: ScriptedTransport { ScriptedTransport { req, _ in HTTPResponse(status: 200, headers: ["apns-id": req.headers["apns-id"]!]) } }

    func testAlertPushGetsSpecDefaultsAndAGeneratedLowercaseApnsID() async throws {
        let t = Self.ok
        let push = try PreparedAPNsPush(payload: Array(#"{"aps":{"alert":"hi"}}"#.utf8), options: APNsPushOptions(topic: "io.pushlab.demo"))
        let result = await client(t).send(push, to: TestTokens.apns)
        XCTAssertTrue(result.isAccepted)
        let r = try XCTUnwrap(t.requests.first)
        XCTAssertEqual(r.method, "POST")
        XCTAssertEqual(r.url, "https://localhost:8443/3/device/" + TestTokens.apns)
        XCTAssertEqual(r.headers["authorization"], "bearer header.claims.sig")
        XCTAssertEqual(r.headers["apns-push-type"], "alert")
        XCTAssertEqual(r.headers["apns-topic"], "io.pushlab.demo")
        XCTAssertEqual(r.headers["apns-priority"], "10")
        XCTAssertNil(r.headers["apns-expiration"])
        let id = try XCTUnwrap(r.headers["apns-id"])
        XCTAssertTrue(APNsID.isCanonical(id), id)
        XCTAssertEqual(result.apnsID, id)
        XCTAssertEqual(r.headers.values(for: "apns-id").count, 1)
    }

    func testBackgroundPushIsInferredWithPriority5() async throws {
        let t = Self.ok
        let push = try PreparedAPNsPush(payload: Array(#"{"aps":{"content-available":1}}"#.utf8), options: APNsPushOptions(topic: "io.x"))
        _ = await client(t).send(push, to: TestTokens.apns)
        XCTAssertEqual(t.requests.first?.headers["apns-push-type"], "background")
        XCTAssertEqual(t.requests.first?.headers["apns-priority"], "5")
    }

    func testExplicitVoipGetsTheTopicSuffixAndAllGivenHeaders() async throws {
        let t = Self.ok
        let id = "123e4567-e89b-12d3-a456-426614174000"
        let push = try PreparedAPNsPush(payload: Array(#"{"aps":{}}"#.utf8), options: APNsPushOptions(
            topic: "io.x", pushType: .voip, priority: 5, expiration: 0, collapseID: "c1", apnsID: id))
        let result = await client(t).send(push, to: TestTokens.apns)
        let h = try XCTUnwrap(t.requests.first?.headers)
        XCTAssertEqual(h["apns-topic"], "io.x.voip")
        XCTAssertEqual(h["apns-push-type"], "voip")
        XCTAssertEqual(h["apns-priority"], "5")
        XCTAssertEqual(h["apns-expiration"], "0")
        XCTAssertEqual(h["apns-collapse-id"], "c1")
        XCTAssertEqual(h["apns-id"], id)
        XCTAssertEqual(result.apnsID, id)
    }

    func testPreflightRefusesWhatAPNsWouldRefuse() {
        func refuse(_ payload: String, _ options: APNsPushOptions, _ expected: APNsPreflightError) {
            XCTAssertThrowsError(try PreparedAPNsPush(payload: Array(payload.utf8), options: options)) { e in
                XCTAssertEqual(e as? APNsPreflightError, expected)
            }
        }
        let topic = APNsPushOptions(topic: "io.x")
        refuse("", topic, .payloadEmpty)
        refuse(#"{"aps":{"alert":"x"}}"#, APNsPushOptions(), .missingTopic)
        refuse(#"{"aps":{"alert":"x"}}"#, APNsPushOptions(topic: "io.x", priority: 7), .badPriority(7))
        refuse(#"{"aps":{"content-available":1}}"#, APNsPushOptions(topic: "io.x", priority: 10), .backgroundNeedsPriority5(10))
        refuse(#"{"aps":{"alert":"x"}}"#, APNsPushOptions(topic: "io.x", collapseID: String(repeating: "c", count: 65)), .collapseIDTooLong(bytes: 65))
        refuse(#"{"aps":{"alert":"x"}}"#, APNsPushOptions(topic: "io.x", apnsID: "NOT-A-UUID"), .badAPNsID("NOT-A-UUID"))
        let big = #"{"aps":{"alert":""# + String(repeating: "x", count: 4100) + #""}}"#
        refuse(big, topic, .payloadTooLarge(bytes: big.utf8.count, limit: 4096, pushType: .alert))
        XCTAssertNoThrow(try PreparedAPNsPush(payload: Array(big.utf8), options: APNsPushOptions(topic: "io.x", pushType: .voip)))
        XCTAssertNoThrow(try PreparedAPNsPush(payload: Array("not json".utf8), options: APNsPushOptions(), validate: false))
    }

    func testFCMTokenGivenToAPNsIsRefusedBeforeSending() async throws {
        let t = Self.ok
        let push = try PreparedAPNsPush(payload: Array(#"{"aps":{"alert":"hi"}}"#.utf8), options: APNsPushOptions(topic: "io.x"))
        let result = await client(t).send(push, to: TestTokens.fcm)
        XCTAssertTrue(t.requests.isEmpty)
        guard case .notSent(let why, _) = result.outcome else { return XCTFail("\(result.outcome)") }
        XCTAssertTrue(why.contains("FCM registration token"), why)
        XCTAssertEqual(result.report.outcome, .invalid)
    }

    func testVerboseLogRedactsTheBearerAndShortensTheToken() async throws {
        let lines = LockedLines()
        var c = client(Self.ok)
        c.log = { lines.append($0) }
        let push = try PreparedAPNsPush(payload: Array(#"{"aps":{"alert":"hi"}}"#.utf8), options: APNsPushOptions(topic: "io.x"))
        _ = await c.send(push, to: TestTokens.apns)
        let text = lines.all.joined(separator: "\n")
        XCTAssertTrue(text.contains("authorization: bearer <redacted>"), text)
        XCTAssertFalse(text.contains("header.claims.sig"))
        XCTAssertFalse(text.contains(TestTokens.apns))
        XCTAssertTrue(text.contains("/3/device/abababab…"), text)
    }
}

final class LockedLines: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []  // protected by `lock`
    func append(_ s: String) { lock.withLock { lines.append(s) } }
    var all: [String] { lock.withLock { lines } }
}

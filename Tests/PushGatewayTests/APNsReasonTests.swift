import Foundation
import TestSupport
import XCTest
import PushAuth
import PushCore
@testable import PushGateway

/// One test per APNs reason the gateway can give (docs/specs/apns.md "Response"), sent by the real curl.
final class APNsReasonTests: XCTestCase {
    var h: GatewayHarness!
    let alert = #"{"aps":{"alert":{"title":"Hi","body":"There"}}}"#

    override func setUp() async throws { h = try GatewayHarness() }
    override func tearDown() async throws { await h.stop() }

    private func push(token: String = GatewayHarness.devToken, headers: [(String, String)] = [], auth: String?? = nil,
                      topic: String? = Fixtures.bundleID, body: String? = nil, method: String = "POST") throws -> CurlResponse {
        var hs = headers
        if let topic { hs.append(("apns-topic", topic)) }
        switch auth {
        case .none: hs.append(("authorization", "bearer " + (try h.providerToken())))
        case .some(.some(let value)): hs.append(("authorization", value))
        case .some(.none): break
        }
        return try Curl.one(CurlRequest(method: method, url: "\(h.apnsBase)/3/device/\(token)", headers: hs, body: body ?? alert))
    }

    private func assertRejected(_ r: CurlResponse, _ status: Int, _ reason: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(r.status, status, r.body, file: file, line: line)
        XCTAssertEqual(r.reason, reason, r.body, file: file, line: line)
        // One definition (issue 15): every reason the gateway answers is a case of PushCore's APNsReason.
        XCTAssertTrue(APNsReason(rawValue: reason).isKnown || APNsReason(rawValue: reason) == .emulatorBadPayload,
                      "\(reason) is not in APNsReason", file: file, line: line)
        XCTAssertNotNil(r.headers["apns-id"], "every answer carries apns-id", file: file, line: line)
    }

    func testAcceptedPushIs200WithApnsIdEchoedAndUniqueIdInSandbox() throws {
        let id = "4e3d8f3a-6b1c-4a5e-9f0d-2c7b8a9e1f00"
        let r = try push(headers: [("apns-id", id)])
        XCTAssertEqual(r.status, 200)
        XCTAssertEqual(r.body, "")
        XCTAssertEqual(r.headers["apns-id"], id)
        XCTAssertNotNil(r.headers["apns-unique-id"])
        XCTAssertEqual(h.sink.delivered.count, 1)
    }

    /// Answers on one connection, read by curl: the first sends `apns-id` and `apns-unique-id`
    /// indexed, the later ones as literals that name the indexed field (HeaderBlock.flags), so
    /// this checks what a real HPACK decoder makes of both forms. Every id is a distinct
    /// lowercase v4 UUID.
    func testAnswersOnOneConnectionCarryDistinctLowercaseUUIDs() throws {
        let token = try h.providerToken()
        let requests = (0..<12).map { _ in
            CurlRequest(url: "\(h.apnsBase)/3/device/\(GatewayHarness.devToken)",
                        headers: [("apns-topic", Fixtures.bundleID), ("authorization", "bearer " + token)], body: alert)
        }
        let answers = try Curl.run(requests)
        var seen = Set<String>()
        for (i, r) in answers.enumerated() {
            XCTAssertEqual(r.status, 200, "answer \(i): \(r.body)")
            for name in ["apns-id", "apns-unique-id"] {
                let id = try XCTUnwrap(r.headers[name], "answer \(i) has no \(name)")
                XCTAssertEqual(UUID(uuidString: id)?.uuidString.lowercased(), id, "answer \(i): \(name) \(id)")
                XCTAssertEqual(Array(id)[14], "4", "answer \(i): \(name) \(id) is version 4")
                seen.insert(id)
            }
        }
        XCTAssertEqual(seen.count, 2 * requests.count, "every id is distinct")
        XCTAssertEqual(h.sink.delivered.count, requests.count)
    }

    /// The id the answer carries is the one the record and the delivered push keep, byte for
    /// byte: a given id in any letter case (echoed as sent), a made one, and the unique id.
    func testTheRecordAndTheDeliveredPushKeepTheAnsweredIds() throws {
        let given = "4E3D8f3a-6b1c-4a5e-9F0D-2c7b8a9e1f00"
        let echoed = try push(headers: [("apns-id", given)])
        let made = try push()
        let rejected = try push(headers: [("apns-priority", "7")])
        XCTAssertEqual(echoed.headers["apns-id"], given)
        XCTAssertEqual(rejected.status, 400)
        let records = try h.gateway.records.recent(limit: 3)
        XCTAssertEqual(records.map(\.messageID), [given, made.headers["apns-id"], rejected.headers["apns-id"]])
        XCTAssertEqual(records.map(\.uniqueID), [echoed.headers["apns-unique-id"], made.headers["apns-unique-id"], nil])
        XCTAssertEqual(records.first?.headers["apns-id"], given, "the request's header map keeps it too")
        XCTAssertEqual(h.sink.delivered.map(\.messageID), [given, made.headers["apns-id"]])
    }

    func testMissingApnsIdIsGeneratedAsLowercaseUUID() throws {
        let r = try push()
        let id = try XCTUnwrap(r.headers["apns-id"])
        XCTAssertEqual(id, id.lowercased())
        XCTAssertNotNil(UUID(uuidString: id))
    }

    func testBadCollapseId() throws { assertRejected(try push(headers: [("apns-collapse-id", String(repeating: "x", count: 65))]), 400, "BadCollapseId") }
    func testBadDeviceTokenForNonHex() throws { assertRejected(try push(token: "not-a-token"), 400, "BadDeviceToken") }
    func testBadExpirationDate() throws { assertRejected(try push(headers: [("apns-expiration", "tomorrow")]), 400, "BadExpirationDate") }
    func testBadMessageId() throws { assertRejected(try push(headers: [("apns-id", "123")]), 400, "BadMessageId") }
    func testBadPriority() throws { assertRejected(try push(headers: [("apns-priority", "7")]), 400, "BadPriority") }
    func testBadTopicForATopicThatIsNoBundleId() throws {
        assertRejected(try push(topic: "io.pushlab demo"), 400, "BadTopic")
    }
    func testDeviceTokenNotForTopicWhenTheTopicLacksThePushTypeSuffix() throws {
        // A VoIP token is registered for `<bundle>.voip`; the bare bundle id is another topic.
        assertRejected(try push(headers: [("apns-push-type", "voip")]), 400, "DeviceTokenNotForTopic")
    }
    func testDeviceTokenNotForTopicInQuickStart() throws {
        // Quick start accepts any token for the dev bundle only; another allowed topic needs a device.
        let h2 = try GatewayHarness(devices: [EmulatedDevice(name: "a", apnsToken: String(repeating: "cd", count: 32), bundleID: "io.other.app")])
        addTeardownBlock { await h2.stop() }  // stopped and awaited, not fire-and-forget
        let r = try Curl.one(CurlRequest(url: "\(h2.apnsBase)/3/device/\(String(repeating: "cd", count: 32))",
                                         headers: [("apns-topic", Fixtures.bundleID), ("authorization", "bearer " + (try h2.providerToken()))], body: alert))
        assertRejected(r, 400, "DeviceTokenNotForTopic")
    }
    func testDuplicateHeaders() throws {
        assertRejected(try push(headers: [("apns-priority", "10"), ("apns-priority", "5")]), 400, "DuplicateHeaders")
    }
    func testInvalidPushType() throws { assertRejected(try push(headers: [("apns-push-type", "banner")]), 400, "InvalidPushType") }
    func testMissingDeviceToken() throws { assertRejected(try push(token: ""), 400, "MissingDeviceToken") }
    func testMissingTopic() throws { assertRejected(try push(topic: nil), 400, "MissingTopic") }
    func testPayloadEmpty() throws { assertRejected(try push(body: ""), 400, "PayloadEmpty") }
    func testTopicDisallowed() throws { assertRejected(try push(topic: "com.someone.else"), 400, "TopicDisallowed") }
    func testUnparsableBodyIsBadPayload() throws { assertRejected(try push(body: "{nope"), 400, "BadPayload") }

    func testMissingProviderToken() throws { assertRejected(try push(auth: .some(nil)), 403, "MissingProviderToken") }
    func testInvalidProviderTokenForGarbage() throws { assertRejected(try push(auth: "bearer abc.def.ghi"), 403, "InvalidProviderToken") }
    func testInvalidProviderTokenForUnknownKey() throws {
        assertRejected(try push(auth: "bearer " + (try h.providerToken(keyID: "ZZZZZZZZZZ"))), 403, "InvalidProviderToken")
    }
    func testInvalidProviderTokenForWrongTeam() throws {
        assertRejected(try push(auth: "bearer " + (try h.providerToken(teamID: "OTHERTEAM1"))), 403, "InvalidProviderToken")
    }
    func testInvalidProviderTokenForBadSignature() throws {
        let other = PrivateKeyFactory.p256()
        assertRejected(try push(auth: "bearer " + (try h.providerToken(key: other))), 403, "InvalidProviderToken")
    }
    func testInvalidProviderTokenForIssuedInTheFuture() throws {
        assertRejected(try push(auth: "bearer " + (try h.providerToken(iat: h.clock.now.addingTimeInterval(600)))), 403, "InvalidProviderToken")
    }
    func testExpiredProviderTokenForIatOlderThanAnHour() throws {
        assertRejected(try push(auth: "bearer " + (try h.providerToken(iat: h.clock.now.addingTimeInterval(-3601)))), 403, "ExpiredProviderToken")
    }

    func testBadPathIs404() throws {
        let r = try Curl.one(CurlRequest(url: "\(h.apnsBase)/4/device/\(GatewayHarness.devToken)", body: alert))
        XCTAssertEqual(r.status, 404)
        XCTAssertEqual(r.reason, "BadPath")
    }
    func testMethodNotAllowed() throws { assertRejected(try push(method: "PUT"), 405, "MethodNotAllowed") }

    func testUnregisteredIs410WithTimestamp() throws {
        let since = Date(timeIntervalSince1970: 1_760_000_000)
        let token = String(repeating: "ef", count: 32)
        let h2 = try GatewayHarness(devices: [EmulatedDevice(name: "old", apnsToken: token, bundleID: Fixtures.bundleID, unregisteredSince: since)])
        addTeardownBlock { await h2.stop() }  // stopped and awaited, not fire-and-forget
        let r = try Curl.one(CurlRequest(url: "\(h2.apnsBase)/3/device/\(token)",
                                         headers: [("apns-topic", Fixtures.bundleID), ("authorization", "bearer " + (try h2.providerToken()))], body: alert))
        assertRejected(r, 410, "Unregistered")
        XCTAssertEqual(r.json["timestamp"] as? Int64 ?? (r.json["timestamp"] as? NSNumber)?.int64Value, 1_760_000_000_000)
    }

    func testPayloadTooLargeAbove4096AndVoIPAllows5120() throws {
        let big = #"{"aps":{"alert":"\#(String(repeating: "x", count: 4100))"}}"#
        assertRejected(try push(body: big), 413, "PayloadTooLarge")
        let voip = try push(headers: [("apns-push-type", "voip")], topic: Fixtures.bundleID + ".voip", body: big)
        XCTAssertEqual(voip.status, 200, voip.body)
    }

    func testTooManyRequestsForOneToken() async throws {
        await h.stop()
        h = try GatewayHarness(configure: { $0.perTokenLimit = 2 })
        let token = try h.providerToken()
        let req = CurlRequest(url: "\(h.apnsBase)/3/device/\(GatewayHarness.devToken)",
                              headers: [("apns-topic", Fixtures.bundleID), ("authorization", "bearer " + token)], body: alert)
        let rs = try Curl.run([req, req, req])
        XCTAssertEqual(rs.map(\.status), [200, 200, 429])
        XCTAssertEqual(rs[2].reason, "TooManyRequests")
    }

    func testTooManyProviderTokenUpdatesOnOneConnection() throws {
        let first = try h.providerToken(iat: h.clock.now.addingTimeInterval(-10))
        let second = try h.providerToken()
        func req(_ t: String) -> CurlRequest {
            CurlRequest(url: "\(h.apnsBase)/3/device/\(GatewayHarness.devToken)",
                        headers: [("apns-topic", Fixtures.bundleID), ("authorization", "bearer " + t)], body: alert)
        }
        let rs = try Curl.run([req(first), req(second), req(first)])
        XCTAssertEqual(rs.map(\.status), [200, 429, 200])
        XCTAssertEqual(rs[1].reason, "TooManyProviderTokenUpdates")
    }

    /// `--token-updates team`: a second token for the team on another connection within 20
    /// minutes is refused; the team's current token is not; after 20 minutes a new one is taken.
    /// The default (per connection) lets each connection have its own.
    func testTooManyProviderTokenUpdatesAcrossConnectionsOfOneTeam() async throws {
        func req(_ t: String) -> CurlRequest {
            CurlRequest(url: "\(h.apnsBase)/3/device/\(GatewayHarness.devToken)",
                        headers: [("apns-topic", Fixtures.bundleID), ("authorization", "bearer " + t)], body: alert)
        }
        let perConnection = [try Curl.one(req(try h.providerToken(iat: h.clock.now.addingTimeInterval(-10)))), try Curl.one(req(try h.providerToken()))]
        XCTAssertEqual(perConnection.map(\.status), [200, 200], "by default each connection may have its own token")
        await h.stop()
        h = try GatewayHarness(configure: { $0.providerTokenUpdates = .team })
        let first = try h.providerToken(iat: h.clock.now.addingTimeInterval(-10))
        let second = try h.providerToken()
        // Curl.one opens a new connection per request.
        let rs = [try Curl.one(req(first)), try Curl.one(req(second)), try Curl.one(req(first))]
        XCTAssertEqual(rs.map(\.status), [200, 429, 200])
        XCTAssertEqual(rs[1].reason, "TooManyProviderTokenUpdates")
        h.clock.advance(by: 20 * 60)
        let later = try Curl.one(req(try h.providerToken()))
        XCTAssertEqual(later.status, 200, later.body)
    }

    func testUnrelatedKeyIdInTokenOnOneConnection() async throws {
        await h.stop()
        let otherKey = PrivateKeyFactory.p256()
        h = try GatewayHarness(extraKeys: { keys in
            keys.trustAPNsKey(TrustedAPNsKey(keyID: "PLDEVKEY02", teamID: Fixtures.apnsTeamID), publicKey: otherKey.publicKey)
        })
        func req(_ t: String) -> CurlRequest {
            CurlRequest(url: "\(h.apnsBase)/3/device/\(GatewayHarness.devToken)",
                        headers: [("apns-topic", Fixtures.bundleID), ("authorization", "bearer " + t)], body: alert)
        }
        let rs = try Curl.run([req(try h.providerToken()), req(try h.providerToken(keyID: "PLDEVKEY02", key: otherKey))])
        XCTAssertEqual(rs.map(\.status), [200, 403])
        XCTAssertEqual(rs[1].reason, "UnrelatedKeyIdInToken")
    }

    func testBadEnvironmentKeyIdInToken() async throws {
        await h.stop()
        let prodKey = PrivateKeyFactory.p256()
        h = try GatewayHarness(extraKeys: { keys in
            keys.trustAPNsKey(TrustedAPNsKey(keyID: "PLPRODKEY1", teamID: Fixtures.apnsTeamID, restriction: .productionOnly), publicKey: prodKey.publicKey)
        })
        assertRejected(try push(auth: "bearer " + (try h.providerToken(keyID: "PLPRODKEY1", key: prodKey))), 403, "BadEnvironmentKeyIdInToken")
    }

    func testFaultPlanAnswers503WithRetryAfter() async throws {
        await h.stop()
        h = try GatewayHarness(configure: { $0.faultPlan = FaultPlan(seed: 1, rules: [FaultRule(route: "/3/device/{token}", outcome: .status(503, retryAfter: 2, reason: nil))]) })
        let r = try push()
        assertRejected(r, 503, "ServiceUnavailable")
        XCTAssertEqual(r.headers["retry-after"], "2")
        XCTAssertTrue(h.sink.delivered.isEmpty)
    }

    func testFaultAnswersEchoOnlyACanonicalApnsID() async throws {
        await h.stop()
        h = try GatewayHarness(configure: { $0.faultPlan = FaultPlan(seed: 1, rules: [FaultRule(route: "/3/device/{token}", outcome: .status(503, retryAfter: nil, reason: nil))]) })
        let canonical = "123e4567-e89b-42d3-a456-426614174000"
        XCTAssertEqual(try push(headers: [("apns-id", canonical)]).headers["apns-id"], canonical)
        let replaced = try push(headers: [("apns-id", "not-a-uuid")]).headers["apns-id"]
        XCTAssertNotEqual(replaced, "not-a-uuid")
        XCTAssertNotNil(replaced.flatMap { UUID(uuidString: $0) }, "a fresh id instead: \(replaced ?? "none")")
    }

    func testRejectionsAndAcceptsAreRecordedWithBearerRedacted() throws {
        _ = try push()
        _ = try push(headers: [("apns-priority", "7")])
        let records = try h.gateway.records.recent()
        XCTAssertEqual(records.map(\.status), [200, 400])
        XCTAssertEqual(records[1].reason, "BadPriority")
        XCTAssertEqual(records[0].headers["authorization"], "bearer <redacted>")
    }
}

/// Keys made on the fly for tests that need a second, untrusted or restricted key.
enum PrivateKeyFactory {
    static func p256() -> PushAuth.PrivateKey { .generateP256() }
}

import Foundation
import PushCore
import TestSupport
import XCTest
@testable import PushGateway

/// One definition (issue 15): the gateway answers every request rule of PushCore with that rule's
/// `APNsReason` and the status of the spec's table, for a request that breaks just that rule
/// (sent by the real curl). The same request, read by PushCore's wire parser, breaks the rule.
final class GatewayAnswersWithRequestRulesTests: XCTestCase {
    func testEachRequestRuleIsAnsweredWithItsReasonAndStatus() async throws {
        let h = try GatewayHarness()
        addTeardownBlock { await h.stop() }
        let jwt = try h.providerToken()
        let alert = #"{"aps":{"alert":"hi"}}"#
        struct Sample { var rule: APNsRequestRule; var method = "POST"; var token = GatewayHarness.devToken
                        var headers: [(String, String)] = []; var topic: String? = Fixtures.bundleID; var body: String? = nil }
        let samples: [Sample] = [
            Sample(rule: .methodIsPOST, method: "PUT"),
            Sample(rule: .deviceTokenPresent, token: ""),
            Sample(rule: .deviceTokenIsHex, token: "not-a-token"),
            Sample(rule: .noDuplicateHeaders, headers: [("apns-priority", "10"), ("apns-priority", "5")]),
            Sample(rule: .apnsIDIsCanonicalUUID, headers: [("apns-id", "123")]),
            Sample(rule: .expirationIsUNIXSeconds, headers: [("apns-expiration", "+5")]),
            Sample(rule: .priorityIsKnown, headers: [("apns-priority", "7")]),
            Sample(rule: .pushTypeIsKnown, headers: [("apns-push-type", "banner")]),
            Sample(rule: .topicPresent, topic: nil),
            Sample(rule: .topicIsBundleID, topic: "io.pushlab demo"),
            Sample(rule: .collapseIDAtMost64Bytes, headers: [("apns-collapse-id", String(repeating: "x", count: 65))]),
            Sample(rule: .topicFitsPushType, headers: [("apns-push-type", "voip")]),
            Sample(rule: .payloadNotEmpty, body: ""),
            Sample(rule: .payloadWithinLimit, body: #"{"aps":{"alert":"\#(String(repeating: "x", count: 4100))"}}"#),
        ]
        XCTAssertEqual(Set(samples.map(\.rule)), Set(APNsRequestRule.allCases), "one sample per rule")
        var requests: [CurlRequest] = []
        for s in samples {
            var headers = s.headers
            if let topic = s.topic { headers.append(("apns-topic", topic)) }
            let body = s.body ?? alert
            let local = APNsRequest(headers: headers.map { (name: $0.0, value: $0.1) }, deviceToken: s.token, method: s.method, body: Array(body.utf8))
            XCTAssertTrue(s.rule.isViolated(by: local), "the sample for \(s.rule.rawValue) does not break it")
            headers.append(("authorization", "bearer " + jwt))
            requests.append(CurlRequest(method: s.method, url: "\(h.apnsBase)/3/device/\(s.token)", headers: headers, body: body))
        }
        let responses = try Curl.run(requests)
        for (s, r) in zip(samples, responses) {
            XCTAssertEqual(r.reason.map(APNsReason.init(rawValue:)), s.rule.reason, "\(s.rule.rawValue): \(r.status) \(r.body)")
            XCTAssertEqual(r.status, s.rule.reason.status, s.rule.rawValue)
        }
    }

    /// Fault answers without a reason of their own carry the reason of the spec's table for
    /// their status (or pushlab's documented BadPayload).
    func testFaultAnswersUseReasonsOfTheSpecTable() throws {
        for status in [400, 403, 404, 410, 413, 429, 500, 503] {
            let reason = APNsRoute.defaultReason(status: status)
            if reason != .emulatorBadPayload { XCTAssertEqual(reason.status, status, "fault answers use the table's status for \(reason)") }
        }
        XCTAssertEqual(APNsRejection(.emulatorBadPayload).status, 400)
        XCTAssertFalse(APNsReason.emulatorBadPayload.isKnown, "BadPayload is pushlab's own, not Apple's")
    }
}

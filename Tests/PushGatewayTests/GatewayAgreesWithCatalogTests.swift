import Foundation
import PushCore
import TestSupport
import XCTest
@testable import PushGateway

/// One rule, one truth: every invalid sample in payloads/invalid/ whose catalog rule names an
/// APNs reason is sent through the gateway with the sample's headers, and the gateway must answer
/// with exactly that reason. The validator (pre-flight) and the emulator (rejections) cannot drift.
final class GatewayAgreesWithCatalogTests: XCTestCase {
    struct Manifest: Decodable {
        struct Case: Decodable {
            var file: String
            var rule: String
            var headers: [String: String]?
            var token: String?
            var format: String?
        }
        var cases: [Case]
    }

    func testEveryAPNsEnforcedRuleGetsItsReasonFromTheGateway() async throws {
        let h = try GatewayHarness()
        addTeardownBlock { await h.stop() }  // stopped and awaited, not fire-and-forget
        let manifest = try JSONDecoder().decode(Manifest.self, from: Data(contentsOf: URL(fileURLWithPath: Fixtures.path("payloads/invalid/expected.json"))))
        let jwt = try h.providerToken()
        var checked: [(rule: String, reason: String)] = []
        var requests: [CurlRequest] = []
        for c in manifest.cases where c.format == nil || c.format == "apns" {
            guard let rule = RuleCatalog.rule(c.rule), let reason = rule.apnsReason else { continue }
            var headers = (c.headers ?? [:]).map { ($0.key, $0.value) }
            if c.headers?["apns-topic"] == nil { headers.append(("apns-topic", Fixtures.bundleID)) }
            headers.append(("authorization", "bearer " + jwt))
            let token = (c.token ?? GatewayHarness.devToken).addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? ""
            let body = try String(contentsOfFile: Fixtures.path("payloads/invalid/" + c.file), encoding: .utf8)
            requests.append(CurlRequest(url: "\(h.apnsBase)/3/device/\(token)", headers: headers, body: body))
            checked.append((c.rule, reason))
        }
        XCTAssertGreaterThanOrEqual(checked.count, 8, "the catalog should have APNs-enforced samples")
        let responses = try Curl.run(requests)
        for (expected, response) in zip(checked, responses) {
            XCTAssertEqual(response.reason, expected.reason, "\(expected.rule): gateway answered \(response.status) \(response.body)")
        }
    }
}

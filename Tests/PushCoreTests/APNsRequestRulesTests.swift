import XCTest
import TestSupport
@testable import PushCore

/// One definition (issue 15): the validator's APNs-enforced rules decide through the request rule
/// the sender and the gateway apply, and each request rule names the reason of Apple's table.
final class APNsRequestRulesTests: XCTestCase {
    func testEveryServiceEnforcedAPNsRuleOfTheCatalogNamesTheRequestRuleItMirrors() {
        for rule in RuleCatalog.all where rule.enforcedBy == .apns && rule.id.hasPrefix("apns.") {
            XCTAssertNotNil(rule.apnsRule, "\(rule.id) is enforced by APNs but names no APNsRequestRule")
        }
        for rule in RuleCatalog.all {
            guard let request = rule.apnsRule else { continue }
            XCTAssertEqual(rule.apnsReason, request.reason.rawValue, rule.id)
            XCTAssertEqual(rule.apnsStatus, request.reason.status, rule.id)
        }
    }

    func testEveryRequestRuleAnswersAReasonOfTheSpecTable() {
        for rule in APNsRequestRule.allCases {
            XCTAssertTrue(rule.reason.isKnown, rule.rawValue)
            XCTAssertNotNil(APNsReason.allKnown.firstIndex(of: rule.reason), rule.rawValue)
        }
        let ordered = APNsRequestRules.headerChecks + APNsRequestRules.topicChecks + APNsRequestRules.payloadChecks
        XCTAssertEqual(Set(ordered), Set(APNsRequestRule.allCases), "every rule runs in the gateway")
        XCTAssertEqual(ordered.count, APNsRequestRule.allCases.count, "and runs once")
    }

    /// Each invalid sample of a rule that mirrors a service check breaks that service rule
    /// when read as a request; the good samples break none of them.
    func testTheValidatorsSamplesBreakTheRequestRuleTheGatewayApplies() throws {
        var checked = 0
        for c in try PayloadSamples.invalidCases() where c.format == nil || c.format == .apns {
            guard let rule = RuleCatalog.rule(c.rule)?.apnsRule else { continue }
            var request = c.context
            request.body = try PayloadSamples.bytes("payloads/invalid/\(c.file)")
            XCTAssertTrue(rule.isViolated(by: request), "\(c.file): the validator reports \(c.rule), but \(rule.rawValue) holds")
            checked += 1
        }
        XCTAssertGreaterThanOrEqual(checked, 8)
        for good in PayloadSamples.goodFiles() where good.hasPrefix("payloads/apns/") {
            let request = APNsRequest(topic: "io.pushlab.demo", deviceToken: String(repeating: "ab", count: 32),
                                      body: try PayloadSamples.bytes(good))
            XCTAssertNil(APNsRequestRules.firstViolation(of: APNsRequestRule.allCases, in: request), good)
        }
    }

    /// The same header values, one at a time: the validator reports its rule exactly when the
    /// request rule is broken (valid and invalid values alike, edge cases included).
    func testTheValidatorFiresExactlyWhenTheRequestRuleIsBroken() {
        let payload: JSONValue = ["aps": ["alert": "hi"]]
        let samples: [(rule: ValidationRule, requests: [APNsRequest])] = [
            (RuleCatalog.apnsPriorityValue, ["10", "5", "1", "7", "05", "", "ten"].map { APNsRequest(priority: $0) }),
            (RuleCatalog.apnsExpirationValue, ["0", "1760000000", "18446744073709551615", "18446744073709551616", "-1", "+5", "", "soon"]
                .map { APNsRequest(expiration: $0) }),
            (RuleCatalog.apnsCollapseIDSize, [String(repeating: "c", count: 64), String(repeating: "c", count: 65), "é" + String(repeating: "c", count: 63)]
                .map { APNsRequest(collapseID: $0) }),
            (RuleCatalog.apnsIDFormat, ["123e4567-e89b-12d3-a456-426614174000", "123E4567-E89B-12D3-A456-426614174000", "123e4567e89b12d3a456426614174000",
                                        "123e4567-e89b-12d3-a456-42661417400", "123e4567-e89b-12d3-a456-4266141740000", "not-a-uuid"]
                .map { APNsRequest(apnsID: $0) }),
            (RuleCatalog.apnsPushTypeUnknown, ["alert", "voip", "liveactivity", "banner", "Alert", ""].map { APNsRequest(pushType: $0) }),
            (RuleCatalog.apnsTopicSuffix, [("voip", "io.x.voip"), ("voip", "io.x"), ("alert", "io.x"), ("alert", "io.x.voip"),
                                           ("liveactivity", "io.x.push-type.liveactivity"), ("widgets", "io.x")]
                .map { APNsRequest(pushType: $0.0, topic: $0.1) }),
            (RuleCatalog.apnsTokenShape, [String(repeating: "ab", count: 32), "<3f3f 3f3f>", "abc"].map { APNsRequest(deviceToken: $0) }),
        ]
        for (catalogRule, requests) in samples {
            guard let requestRule = catalogRule.apnsRule else { XCTFail("\(catalogRule.id) names no request rule"); continue }
            for request in requests {
                let fired = !Validator(options: ValidationOptions(apns: request)).validate(payload, as: .apns).findings(for: catalogRule.id).isEmpty
                XCTAssertEqual(fired, requestRule.isViolated(by: request), "\(catalogRule.id) on \(request.headerFields) token \(request.deviceToken)")
            }
        }
        let big: JSONValue = ["aps": ["alert": .string(String(repeating: "x", count: 4100))]]
        for type in ["alert", "voip"] {
            let request = APNsRequest(pushType: type, topic: type == "voip" ? "io.x.voip" : "io.x", body: big.minifiedBytes())
            let fired = !Validator(options: ValidationOptions(apns: request)).validate(big, as: .apns).findings(for: RuleCatalog.apnsSizeMax.id).isEmpty
            XCTAssertEqual(fired, APNsRequestRule.payloadWithinLimit.isViolated(by: request), type)
        }
    }

    func testTheCanonicalUUIDRuleAcceptsEitherCaseAndGeneratesLowercase() {
        XCTAssertTrue(APNsID.isCanonical("123e4567-e89b-12d3-a456-426614174000"))
        XCTAssertTrue(APNsID.isCanonical("123E4567-E89B-12D3-A456-426614174000"))
        XCTAssertFalse(APNsID.isCanonical("123e4567-e89b-12d3-a456-42661417400g"))
        XCTAssertFalse(APNsID.isCanonical("{123e4567-e89b-12d3-a456-426614174000}"))
        let id = APNsID.generate()
        XCTAssertTrue(APNsID.isCanonical(id))
        XCTAssertEqual(id, id.lowercased())
        XCTAssertNil(APNsID.echoable("123"))
    }

    func testGeneratedIDsAreDistinctVersion4UUIDs() throws {
        var seen = Set<String>()
        for _ in 0..<20_000 {
            let id = APNsID.generate()
            XCTAssertTrue(APNsID.isCanonical(id), id)
            let uuid = try XCTUnwrap(UUID(uuidString: id), id)
            XCTAssertEqual(uuid.uuid.6 >> 4, 4, "version nibble of \(id)")
            XCTAssertEqual(uuid.uuid.8 >> 6, 0b10, "variant bits of \(id)")
            XCTAssertTrue(seen.insert(id).inserted, "\(id) came twice")
        }
        // Each id's digits vary, not only a counter's last ones.
        let first = Set(seen.map { $0.prefix(8) })
        XCTAssertGreaterThan(first.count, 19_000)
    }

    func testPrioritiesAreTheThreeOfTheSpec() {
        XCTAssertEqual(APNsPriority.allCases.map(\.rawValue), [10, 5, 1])
        XCTAssertNil(APNsPriority(rawValue: 7))
        XCTAssertNil(APNsPriority(header: "05"))
        XCTAssertEqual(APNsPriority(header: "5"), .powerConsiderate)
        XCTAssertEqual(APNsPushType.background.requiredPriority, .powerConsiderate)
        XCTAssertNil(APNsPushType.alert.requiredPriority)
    }

    func testTheWireParserKeepsTheFirstValueAndFlagsDuplicatesOfEveryHeaderAPNsReads() {
        for name in ["authorization", "apns-id", "apns-expiration", "apns-priority", "apns-push-type", "apns-topic", "apns-collapse-id"] {
            let request = APNsRequest(headers: [(name.uppercased(), "a"), (name, "b"), ("x-other", "c")])
            XCTAssertTrue(request.hasDuplicateHeader, name)
            XCTAssertTrue(APNsRequestRule.noDuplicateHeaders.isViolated(by: request), name)
        }
        XCTAssertFalse(APNsRequest(headers: [("x-other", "a"), ("x-other", "b")]).hasDuplicateHeader)
    }
}

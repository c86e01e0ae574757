import XCTest
import PushCore
@testable import PushSend

/// One definition (issue 15): the sender's pre-flight refuses a push for the PushCore request rule
/// the gateway answers with, and the validator reports the catalog rule that mirrors it.
final class PreflightUsesRequestRulesTests: XCTestCase {
    func testEachRefusalNamesTheRequestRuleTheRequestBreaksAndTheValidatorAgrees() throws {
        let alert = Array(#"{"aps":{"alert":"x"}}"#.utf8)
        let big = Array((#"{"aps":{"alert":""# + String(repeating: "x", count: 4100) + #""}}"#).utf8)
        let cases: [(payload: [UInt8], options: APNsPushOptions, rule: APNsRequestRule, validatorChecks: Bool)] = [
            (big, APNsPushOptions(topic: "io.x"), .payloadWithinLimit, true),
            (alert, APNsPushOptions(), .topicPresent, false),
            (alert, APNsPushOptions(topic: "io.x", priority: 7), .priorityIsKnown, true),
            (alert, APNsPushOptions(topic: "io.x", expiration: -1), .expirationIsUNIXSeconds, true),
            (alert, APNsPushOptions(topic: "io.x", collapseID: String(repeating: "c", count: 65)), .collapseIDAtMost64Bytes, true),
            (alert, APNsPushOptions(topic: "io.x", apnsID: "123"), .apnsIDIsCanonicalUUID, true),
        ]
        for c in cases {
            XCTAssertThrowsError(try PreparedAPNsPush(payload: c.payload, options: c.options)) { error in
                XCTAssertEqual((error as? APNsPreflightError)?.rule, c.rule)
                XCTAssertEqual((error as? APNsPreflightError)?.wouldBeRejectedAs, c.rule.reason)
            }
            let unchecked = try PreparedAPNsPush(payload: c.payload, options: c.options, validate: false)
            XCTAssertTrue(c.rule.isViolated(by: unchecked.request), c.rule.rawValue)
            if c.validatorChecks {
                let report = Validator(options: ValidationOptions(apns: unchecked.request)).validate(bytes: c.payload, as: .apns)
                XCTAssertTrue(report.findings.contains { $0.rule?.apnsRule == c.rule }, "\(c.rule.rawValue): \(report.findings.map(\.ruleID))")
            }
        }
        let fine = try PreparedAPNsPush(payload: alert, options: APNsPushOptions(topic: "io.x", apnsID: "123E4567-E89B-12D3-A456-426614174000"))
        XCTAssertNil(APNsRequestRules.firstViolation(of: APNsRequestRule.allCases.filter { $0 != .deviceTokenPresent }, in: fine.request))
    }

    /// Validation lives in PushSend (issue 15): any caller that prepares a push gets the rule
    /// catalog's errors and warnings, not only the CLI; `validate: false` skips them.
    func testPreparingAPushRunsTheRuleCatalogForEveryCaller() throws {
        let httpImage = Array(#"{"aps":{"alert":"x","mutable-content":1},"CIO-Delivery-ID":"d","CIO-Delivery-Token":"t","CIO":{"push":{"image":"http://img.test/a.png"}}}"#.utf8)
        XCTAssertThrowsError(try PreparedAPNsPush(payload: httpImage, options: APNsPushOptions(topic: "io.x"))) { error in
            guard case .payloadInvalid(let findings)? = error as? APNsPreflightError else { return XCTFail("\(error)") }
            XCTAssertEqual(findings.map(\.ruleID), ["cio.image.https"])
            XCTAssertTrue((error as! APNsPreflightError).description(source: "p.json").contains("p.json /CIO/push/image"))
        }
        XCTAssertNoThrow(try PreparedAPNsPush(payload: httpImage, options: APNsPushOptions(topic: "io.x"), validate: false))

        let fcm = try JSONDocument.parse(Array(#"{"message":{"topic":"news","apns":{"payload":{"aps":{"alert":"x","mutable-content":1},"CIO-Delivery-ID":"d","CIO-Delivery-Token":"t","CIO":{"push":{"image":"http://img.test/a.png"}}}}}}"#.utf8))
        XCTAssertThrowsError(try PreparedFCMMessage(document: fcm, validateOnly: false)) { error in
            guard case .invalid(let problems)? = error as? FCMMessageError else { return XCTFail("\(error)") }
            XCTAssertEqual(problems.count, 1)
            XCTAssertTrue(problems[0].contains("/message/apns/payload/CIO/push/image"), problems[0])
        }
        XCTAssertNoThrow(try PreparedFCMMessage(document: fcm, validateOnly: false, validate: false))
    }
}

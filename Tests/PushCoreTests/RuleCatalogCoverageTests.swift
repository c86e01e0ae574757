import Foundation
import TestSupport
import XCTest
@testable import PushCore

/// Every rule in the catalog fires, checked from the catalog itself rather than from a list kept
/// by hand: a rule added to `RuleCatalog.all` is tested here with no other change, and
/// RuleFiresTests (one readable test per rule) must name it too.
final class RuleCatalogCoverageTests: XCTestCase {
    func testEveryCatalogRuleFiresOnItsSampleAndOnNoGoodSample() throws {
        XCTAssertFalse(RuleCatalog.all.isEmpty)
        for rule in RuleCatalog.all {
            try RuleSamplesTests.assertRuleFires(rule.id)
        }
    }

    func testRuleFiresTestsHasOneTestPerCatalogRuleInCatalogOrder() throws {
        let source = try String(contentsOfFile: Fixtures.path("Tests/PushCoreTests/RuleFiresTests.swift"), encoding: .utf8)
        let pattern = try NSRegularExpression(pattern: #"func (testRule_\w+)\(\) throws \{ try RuleSamplesTests\.assertRuleFires\("([^"]+)"\) \}"#)
        let matches = pattern.matches(in: source, range: NSRange(source.startIndex..., in: source))
        let named = matches.map { (test: String(source[Range($0.range(at: 1), in: source)!]), rule: String(source[Range($0.range(at: 2), in: source)!])) }
        XCTAssertEqual(named.map(\.rule), RuleCatalog.all.map(\.id), "RuleFiresTests must list every catalog rule once, in catalog order")
        for (test, rule) in named {
            let expected = "testRule_" + rule.replacingOccurrences(of: ".", with: "_").replacingOccurrences(of: "-", with: "_")
            XCTAssertEqual(test, expected, "the test for \(rule) is named after it")
        }
        // The file holds nothing else that could pass for a rule test.
        XCTAssertEqual(source.components(separatedBy: "func test").count - 1, named.count)
    }
}

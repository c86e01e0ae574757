import XCTest
import TestSupport
@testable import PushCore

/// Issue 3 "Tests": every rule fires on its bad sample at the expected place, and no rule
/// fires on the good samples.
final class RuleSamplesTests: XCTestCase {
    /// Validates the rule's sample from payloads/invalid with its manifest context and checks the
    /// rule fires at the expected place with a message and fix — and fires on no good sample.
    static func assertRuleFires(_ rule: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let cases = try PayloadSamples.invalidCases().filter { $0.rule == rule }
        XCTAssertFalse(cases.isEmpty, "no sample for \(rule) in payloads/invalid/expected.json", file: file, line: line)
        for c in cases {
            let bytes = try PayloadSamples.bytes("payloads/invalid/\(c.file)")
            let validator = Validator(options: ValidationOptions(apns: c.context))
            let report = validator.validate(bytes: bytes, as: c.format ?? PayloadSamples.format(forPath: c.file))
            let hits = report.findings(for: rule)
            XCTAssertFalse(hits.isEmpty, "\(rule) did not fire on \(c.file); got \(report.findings.map(\.ruleID))", file: file, line: line)
            if let pointer = c.pointer {
                XCTAssertTrue(hits.contains { $0.pointer == pointer }, "\(rule): expected pointer \(pointer), got \(hits.map(\.place))", file: file, line: line)
            }
            if let header = c.header {
                XCTAssertTrue(hits.contains { $0.header == header }, "\(rule): expected header \(header), got \(hits.map(\.place))", file: file, line: line)
            }
            if let expectedLine = c.line {
                XCTAssertTrue(hits.contains { $0.location?.line == expectedLine }, "\(rule): expected line \(expectedLine)", file: file, line: line)
            }
            for hit in hits {
                XCTAssertFalse(hit.message.isEmpty || hit.fix.isEmpty, rule, file: file, line: line)
                if hit.pointer != nil, !bytes.isEmpty { XCTAssertNotNil(hit.location, "\(rule): findings carry a line", file: file, line: line) }
            }
        }
        for good in PayloadSamples.goodFiles() {
            let report = Validator().validate(bytes: try PayloadSamples.bytes(good), as: PayloadSamples.format(forPath: good))
            XCTAssertTrue(report.findings(for: rule).isEmpty, "\(rule) fired on the good sample \(good)", file: file, line: line)
        }
    }

    func testEveryRuleInTheCatalogHasAnInvalidSample() throws {
        let covered = Set(try PayloadSamples.invalidCases().map(\.rule))
        let missing = RuleCatalog.all.map(\.id).filter { !covered.contains($0) }
        XCTAssertEqual(missing, [], "rules without a sample in payloads/invalid")
        let unknown = covered.filter { RuleCatalog.rule($0) == nil }
        XCTAssertEqual(unknown, [], "samples for rules that are not in the catalog")
    }

    func testEveryGoodSampleValidatesClean() throws {
        let files = PayloadSamples.goodFiles()
        XCTAssertGreaterThanOrEqual(files.count, 8)
        for file in files {
            let report = Validator().validate(bytes: try PayloadSamples.bytes(file), as: PayloadSamples.format(forPath: file))
            XCTAssertEqual(report.findings.map { "\($0.ruleID) \($0.place): \($0.message)" }, [], file)
        }
    }

    func testRuleIDsAreUniqueAndWellFormed() {
        let ids = RuleCatalog.all.map(\.id)
        XCTAssertEqual(Set(ids).count, ids.count)
        for rule in RuleCatalog.all {
            XCTAssertNotNil(rule.id.range(of: #"^[a-z]+(\.[a-z_-]+)+$"#, options: .regularExpression), rule.id)
            XCTAssertFalse(rule.summary.isEmpty)
            XCTAssertFalse(rule.fix.isEmpty)
            if rule.apnsReason != nil { XCTAssertEqual(rule.enforcedBy, .apns, rule.id) }
        }
    }
}

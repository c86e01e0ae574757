import XCTest
import TestSupport
@testable import PushCore

/// Issue 3 "Tests": every rule fires on its bad sample at the expected place, and no rule
/// fires on the good samples.
final class RuleSamplesTests: XCTestCase {
    func testEveryRuleFiresOnItsInvalidSampleAtTheExpectedPlace() throws {
        let cases = try PayloadSamples.invalidCases()
        XCTAssertFalse(cases.isEmpty)
        for c in cases {
            let bytes = try PayloadSamples.bytes("payloads/invalid/\(c.file)")
            let validator = Validator(options: ValidationOptions(apns: c.context))
            let report = validator.validate(bytes: bytes, as: c.format ?? PayloadSamples.format(forPath: c.file))
            let hits = report.findings(for: c.rule)
            XCTAssertFalse(hits.isEmpty, "\(c.rule) did not fire on \(c.file); got \(report.findings.map(\.ruleID))")
            if let pointer = c.pointer {
                XCTAssertTrue(hits.contains { $0.pointer == pointer }, "\(c.rule): expected pointer \(pointer), got \(hits.map(\.place))")
            }
            if let header = c.header {
                XCTAssertTrue(hits.contains { $0.header == header }, "\(c.rule): expected header \(header), got \(hits.map(\.place))")
            }
            if let line = c.line {
                XCTAssertTrue(hits.contains { $0.location?.line == line }, "\(c.rule): expected line \(line), got \(hits.map { $0.location?.description ?? "-" })")
            }
            for hit in hits {
                XCTAssertFalse(hit.message.isEmpty, c.rule)
                XCTAssertFalse(hit.fix.isEmpty, c.rule)
                if hit.pointer != nil, !bytes.isEmpty { XCTAssertNotNil(hit.location, "\(c.rule): findings in a parsed file carry a line") }
            }
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

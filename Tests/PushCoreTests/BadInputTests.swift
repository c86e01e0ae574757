import XCTest
@testable import PushCore

/// Issue 3 "Bad input": binary, invalid UTF-8, huge inputs, deep nesting, huge numbers — a
/// clear finding with a position, no crash.
final class BadInputTests: XCTestCase {
    func testBinaryFileIsAnEncodingFindingAtItsOffset() throws {
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array(repeating: 0, count: 64)
        let f = try XCTUnwrap(Validator().validate(bytes: png).findings.first)
        XCTAssertEqual(f.ruleID, "json.encoding")
        XCTAssertEqual(f.location?.offset, 0)
        let nul = try XCTUnwrap(Validator().validate(bytes: [0x00, 0x7B]).findings.first)
        XCTAssertEqual(nul.ruleID, "json.encoding")
        XCTAssertTrue(nul.message.contains("binary"))
    }

    func testInvalidUTF8InAStringIsReportedAtLineAndColumn() throws {
        let bytes = Array("{\n  \"aps\": {\"alert\": \"ok\"},\n  \"x\": \"".utf8) + [0xFF] + Array("\"\n}".utf8)
        let f = try XCTUnwrap(Validator().validate(bytes: bytes).findings.first)
        XCTAssertEqual(f.ruleID, "json.encoding")
        XCTAssertEqual(f.location?.line, 3)
        XCTAssertEqual(f.location?.column, 9)
    }

    func testInputOverTheCapIsRefusedBeforeParsing() throws {
        let big = [UInt8](repeating: 0x20, count: (1 << 20) + 1)
        let f = try XCTUnwrap(Validator().validate(bytes: big).findings.first)
        XCTAssertEqual(f.ruleID, "apns.size.max")
        XCTAssertTrue(f.message.contains("larger than"), f.message)
    }

    func testTenThousandLevelsOfNestingFailCleanly() throws {
        let text = "{\"aps\":{\"alert\":\"x\"},\"d\":" + String(repeating: "{\"a\":", count: 10_000) + "1" + String(repeating: "}", count: 10_001)
        let f = try XCTUnwrap(Validator().validate(bytes: Array(text.utf8)).findings.first)
        XCTAssertEqual(f.ruleID, "json.depth")
        XCTAssertEqual(f.location?.line, 1)
        XCTAssertTrue(f.message.contains("512"))
    }

    func testHugeNumbersAreFindingsNotCrashes() throws {
        let digits = String(repeating: "9", count: 5000)
        let report = Validator().validate(bytes: Array("{\"aps\":{\"alert\":\"x\",\"badge\":\(digits),\"relevance-score\":1e400}}".utf8))
        XCTAssertEqual(report.findings.map(\.ruleID).sorted(), ["apns.size.max", "aps.relevance-score.range"],
                       "a 5000-digit badge is still an integer ≥ 0, but the payload is over 4096 bytes")
        let inf = Validator().validate(bytes: Array("{\"aps\":{\"alert\":\"x\",\"badge\":1e400}}".utf8))
        XCTAssertEqual(inf.findings.map(\.ruleID), ["aps.badge.type"])
    }

    func testTruncatedDocumentsReportTheEnd() throws {
        let f = try XCTUnwrap(Validator().validate(bytes: Array("{\"aps\": {\"alert\": \"x\"".utf8)).findings.first)
        XCTAssertEqual(f.ruleID, "json.syntax")
        XCTAssertEqual(f.location?.offset, 21)
        XCTAssertTrue(f.message.contains("unexpected end"))
    }

    func testManyBadValuesGiveABoundedNumberOfFindings() throws {
        // ~1 MB FCM message with 60,000 non-string data values: 50 findings, the last one counting the rest.
        var text = "{\"message\":{\"topic\":\"t\",\"data\":{"
        text += (0..<60_000).map { "\"k\($0)\":\($0)" }.joined(separator: ",")
        text += "}}}"
        XCTAssertLessThan(text.utf8.count, 1 << 20)
        let report = Validator().validate(bytes: Array(text.utf8))
        let data = report.findings(for: "fcm.data.string")
        XCTAssertEqual(data.count, FindingCollector.maxPerRule)
        XCTAssertTrue(data.last?.message.contains("and 59950 more like this") ?? false, data.last?.message ?? "")
        XCTAssertEqual(data.first?.location?.line, 1)
    }
}

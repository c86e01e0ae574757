import XCTest
@testable import PushCore

/// The lossless parser: what it keeps, and where it says a document is broken.
final class JSONParserTests: XCTestCase {
    private func parse(_ text: String) throws -> JSONDocument { try JSONParser().parse(text) }

    private func parseError(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> JSONParseError? {
        do {
            _ = try JSONParser().parse(text)
            XCTFail("expected a parse error for \(text.prefix(60))", file: file, line: line)
            return nil
        } catch {
            return error
        }
    }

    func testKeepsKeyOrderAndDuplicateKeys() throws {
        let doc = try parse(#"{"b":1,"a":2,"b":3}"#)
        let o = try XCTUnwrap(doc.root.objectValue)
        XCTAssertEqual(o.keys, ["b", "a", "b"])
        XCTAssertEqual(o["b"], 3, "the last duplicate wins on lookup")
        XCTAssertEqual(o.duplicateKeys.map(\.key), ["b"])
        XCTAssertEqual(o.duplicateKeys.first?.members.count, 2)
    }

    func testKeepsNumberLiteralsAndBooleansDistinctFromNumbers() throws {
        let doc = try parse(#"{"a":1,"b":1.0,"c":true,"d":1e0,"e":-0}"#)
        XCTAssertEqual(doc.root["a"]?.numberValue?.text, "1")
        XCTAssertEqual(doc.root["b"]?.numberValue?.text, "1.0")
        XCTAssertEqual(doc.root["b"]?.numberValue?.isIntegerLiteral, false)
        XCTAssertEqual(doc.root["b"]?.numberValue?.hasIntegralValue, true)
        XCTAssertEqual(doc.root["c"], .bool(true))
        XCTAssertNotEqual(doc.root["a"], doc.root["b"])
        XCTAssertNotEqual(doc.root["a"], doc.root["c"])
        XCTAssertEqual(doc.root["d"]?.numberValue?.text, "1e0")
        XCTAssertEqual(doc.root["e"]?.numberValue?.text, "-0")
    }

    func testHugeNumbersAreKeptAsTextWithoutOverflow() throws {
        let digits = String(repeating: "9", count: 400)
        let doc = try parse("{\"n\":\(digits),\"x\":1e999999}")
        XCTAssertEqual(doc.root["n"]?.numberValue?.text, digits)
        XCTAssertNil(doc.root["n"]?.numberValue?.intValue)
        XCTAssertEqual(doc.root["x"]?.numberValue?.doubleValue, .infinity)
    }

    func testStringsDecodeEscapesAndSurrogatePairs() throws {
        let doc = try parse(#"["a\"b\\c\/\n\t", "\u00e9\ud83d\ude00", "caf\u00E9 ok", "日本"]"#)
        let a = try XCTUnwrap(doc.root.arrayValue)
        XCTAssertEqual(a[0], "a\"b\\c/\n\t")
        XCTAssertEqual(a[1], "é😀")
        XCTAssertEqual(a[2], "café ok")
        XCTAssertEqual(a[3], "日本")
    }

    /// `JSONEscape.decodedText` reads one string in place as the parser reads strings: the
    /// text where the parser reads it, nil where it refuses it.
    func testDecodedTextReadsAStringInPlaceAsTheParserDoes() throws {
        for text in [#""a\"b\\c\/\n\t""#, #""\u00e9\ud83d\ude00\u0000""#, #""caf\u00E9 ok""#, #""日本""#, #""\uD83D""#, #""\uDE00""#,
                     #""\uD83D\u0041""#, #""\x""#, #""\u00zz""#, #""\u12""#, "\"a\u{1}\"", #""a"#, #""\"#] {
            let bytes = Array(("xx" + text + "yy").utf8)
            let parsed = try? JSONParser().parse("[" + text + "]").root.arrayValue?.first?.stringValue
            XCTAssertEqual(JSONEscape.decodedText(bytes, quoteAt: 2), parsed, text)
        }
        XCTAssertEqual(JSONEscape.decodedText(Array(#""\u0041""#.utf8), quoteAt: 0), "A")
        XCTAssertNil(JSONEscape.decodedText(Array(#"a"b""#.utf8), quoteAt: 0))  // not at a quote
        XCTAssertNil(JSONEscape.decodedText(Array(#""b""#.utf8), quoteAt: 5))
    }

    func testErrorCarriesLineColumnAndOffset() throws {
        let err = try XCTUnwrap(parseError("{\n  \"aps\": {\n    \"badge\": 1,\n  }\n}"))
        XCTAssertEqual(err.reason, .trailingComma)
        XCTAssertEqual(err.line, 4)
        XCTAssertEqual(err.column, 3)
        XCTAssertEqual(err.offset, 31)
    }

    func testLineCommentIsReportedAsCommentAtItsLine() throws {
        let err = try XCTUnwrap(parseError("{\n  \"aps\": {\"alert\": \"hi\"} // the alert\n}"))
        XCTAssertEqual(err.reason, .comment)
        XCTAssertEqual(err.message, "comments are not allowed in JSON")
        XCTAssertEqual(err.line, 2)
        XCTAssertEqual(err.column, 26)
    }

    func testBlockCommentIsReportedAsComment() throws {
        let err = try XCTUnwrap(parseError("/* sample */ {\"aps\":{}}"))
        XCTAssertEqual(err.reason, .comment)
        XCTAssertEqual(err.line, 1)
        XCTAssertEqual(err.column, 1)
    }

    func testNestingBeyondTheLimitFailsCleanly() throws {
        let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        let err = try XCTUnwrap(parseError(deep))
        XCTAssertEqual(err.reason, .nestingTooDeep(limit: 512))
        XCTAssertEqual(err.offset, 512)
        // Exactly at the limit is fine.
        let ok = String(repeating: "[", count: 512) + String(repeating: "]", count: 512)
        XCTAssertNoThrow(try parse(ok))
    }

    func testInvalidUTF8IsReportedWithItsOffset() throws {
        var bytes = Array(#"{"aps":{"alert":"caf"#.utf8)
        bytes.append(0xE9)  // Latin-1 é, not UTF-8
        bytes += Array(#""}}"#.utf8)
        do {
            _ = try JSONParser().parse(bytes)
            XCTFail("expected invalid UTF-8")
        } catch {
            XCTAssertEqual(error.reason, .invalidUTF8)
            XCTAssertEqual(error.offset, 20)
            XCTAssertEqual(error.line, 1)
        }
    }

    func testOverlongAndSurrogateUTF8AreRejected() {
        for bad: [UInt8] in [[0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xE2, 0x82]] {
            let bytes = [0x22] + bad + [0x22]
            XCTAssertThrowsError(try JSONParser().parse(bytes)) { error in
                XCTAssertEqual((error as? JSONParseError)?.reason, .invalidUTF8, "\(bad)")
            }
        }
    }

    func testBinaryInputIsNamedAsBinary() throws {
        let bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00]
        XCTAssertThrowsError(try JSONParser().parse(bytes)) { error in
            XCTAssertEqual((error as? JSONParseError)?.reason, .invalidUTF8)
        }
        XCTAssertThrowsError(try JSONParser().parse([0x00, 0x01, 0x02])) { error in
            XCTAssertEqual((error as? JSONParseError)?.reason, .binaryData(byte: 0))
        }
    }

    func testCommonNonJSONFormsGetSpecificErrors() {
        XCTAssertEqual(parseError("{'a': 1}")?.reason, .singleQuotes)
        XCTAssertEqual(parseError("{a: 1}")?.reason, .unquotedKey)
        XCTAssertEqual(parseError("[1,2,]")?.reason, .trailingComma)
        XCTAssertEqual(parseError("{\"a\": 01}")?.reason, .invalidNumber("01"))
        XCTAssertEqual(parseError("{\"a\": +1}")?.reason, .invalidNumber("+1"))
        XCTAssertEqual(parseError("{\"a\": NaN}")?.reason, .invalidNumber("NaN"))
        XCTAssertEqual(parseError("{\"a\": 1.}")?.reason, .invalidNumber("1."))
        XCTAssertEqual(parseError("")?.reason, .empty)
        XCTAssertEqual(parseError("  \n ")?.reason, .empty)
        XCTAssertEqual(parseError("{} {}")?.reason, .trailingContent)
        XCTAssertEqual(parseError("\u{FEFF}{}")?.reason, .byteOrderMark)
        XCTAssertEqual(parseError("{\"a\":\"x\ny\"}")?.reason, .controlCharacterInString(byte: 0x0A))
        XCTAssertEqual(parseError(#"{"a":"\x"}"#)?.reason, .invalidEscape("\\x"))
        XCTAssertEqual(parseError(#"["\ud83d"]"#)?.reason, .loneSurrogate)
        XCTAssertEqual(parseError("{\"a\": tru}")?.reason,
                       .unexpectedCharacter(found: "'tru'", expected: "a value (true, false, null, a number, a string, an array or an object)"))
        if case .unexpectedEnd? = parseError("{\"a\": [1, 2")?.reason {} else { XCTFail("truncated input") }
        if case .unexpectedEnd? = parseError("{\"a\": \"abc")?.reason {} else { XCTFail("unterminated string") }
    }

    func testSizeLimitIsCheckedBeforeParsing() {
        let parser = JSONParser(options: .init(maxBytes: 10))
        XCTAssertThrowsError(try parser.parse(Array(repeating: UInt8(0x20), count: 11))) { error in
            XCTAssertEqual((error as? JSONParseError)?.reason, .tooLarge(bytes: 11, limit: 10))
        }
    }

    func testPointerLocationsMapToLineAndColumn() throws {
        let doc = try parse("{\n  \"aps\": {\n    \"badge\": \"3\"\n  },\n  \"list\": [1, {\"k\": true}]\n}")
        XCTAssertEqual(doc.location(of: "/aps/badge"), JSONSourceLocation(offset: 26, line: 3, column: 14))
        XCTAssertEqual(doc.location(of: "/list/1/k")?.line, 5)
        XCTAssertEqual(doc.location(of: "/list/1/k")?.column, 21)
        // A missing key points at the nearest existing ancestor.
        XCTAssertEqual(doc.location(of: "/aps/sound"), doc.location(of: "/aps"))
        XCTAssertEqual(doc.location(of: ""), JSONSourceLocation(offset: 0, line: 1, column: 1))
    }

    func testColumnsCountCharactersNotBytes() throws {
        let err = try XCTUnwrap(parseError("{\"é日\": x}"))
        XCTAssertEqual(err.column, 8)
        XCTAssertEqual(err.offset, 10)
    }
}

import XCTest
@testable import PushCore

/// Serialisation: what is sent, and that its byte count is what the limits are checked against.
final class JSONSerializerTests: XCTestCase {
    func testMinifiedFormKeepsOrderLiteralsAndDuplicates() throws {
        let source = "{ \"b\" : 1.0 ,\n \"a\": [true, null, -0, 1e3], \"b\": \"x\" }"
        let doc = try JSONParser().parse(source)
        XCTAssertEqual(doc.root.minifiedString, #"{"b":1.0,"a":[true,null,-0,1e3],"b":"x"}"#)
    }

    func testByteCountMatchesTheBytesSent() throws {
        let sources = [
            #"{"aps":{"alert":{"title":"Café ☕","body":"line\nbreak \"quoted\" \\ tab\t"}},"x":"\u0001😀"}"#,
            "{}", "[]", "\"\"", "0", #"{"a":[{},[],"",0,false,null]}"#,
        ]
        for s in sources {
            let doc = try JSONParser().parse(s)
            let bytes = doc.minifiedBytes()
            XCTAssertEqual(doc.minifiedByteCount, bytes.count, s)
            // What is sent parses back to the same value.
            XCTAssertEqual(try JSONParser().parse(bytes).root, doc.root, s)
        }
    }

    func testEscapedSourceIsSentAsUTF8() throws {
        let doc = try JSONParser().parse(#"{"t":"caf\u00e9"}"#)
        XCTAssertEqual(doc.minifiedBytes(), Array(#"{"t":"café"}"#.utf8))
        XCTAssertEqual(doc.minifiedByteCount, 13)
        XCTAssertEqual(doc.source.count, 17)
    }

    func testPrettyPrintingIsValidJSONWithTheSameValue() throws {
        let value: JSONValue = ["aps": ["alert": ["title": "Hi", "body": "There"], "badge": 1], "list": [1, 2], "empty": [:]]
        let pretty = value.prettyPrinted()
        XCTAssertTrue(pretty.contains("\n  \"aps\": {\n    \"alert\": {"))
        XCTAssertEqual(try JSONParser().parse(pretty).root, value)
    }

    func testQuotedStringIsEscapedExactlyAsTheSerializerEscapesIt() {
        let samples = ["", "plain-token_0123", "Café ☕ 😀", "say \"hi\"", "back\\slash", "tab\tnl\ncr\r",
                       "\u{08}\u{0C}\u{01}\u{1F}", "/not escaped/"]
        for s in samples {
            XCTAssertEqual(JSONValue.quoted(s), JSONValue.string(s).minifiedString, s)
        }
        XCTAssertEqual(JSONValue.quoted("a\"b\u{01}"), #""a\"b\u0001""#)
    }
}

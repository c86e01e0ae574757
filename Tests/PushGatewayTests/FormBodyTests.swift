import XCTest
@testable import PushGateway

/// `POST /token`'s form parser against the URL Standard's application/x-www-form-urlencoded
/// parser (https://url.spec.whatwg.org/#urlencoded-parsing), which it follows byte by byte.
final class FormBodyTests: XCTestCase {
    private func parse(_ body: String) -> [String: String] { FormBody.parse(Array(body.utf8)) }

    func testAJWTBearerGrantAsClientLibrariesSendIt() {
        XCTAssertEqual(parse("grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=eyJh.eyJp.c2ln"),
                       ["grant_type": "urn:ietf:params:oauth:grant-type:jwt-bearer", "assertion": "eyJh.eyJp.c2ln"])
    }

    func testSeparatorsAndEmptyPieces() {
        XCTAssertEqual(parse("&&a=1&&b&=x&c=d=e&"), ["a": "1", "b": "", "": "x", "c": "d=e"])
        XCTAssertEqual(parse(""), [:])
        XCTAssertEqual(parse("a=1&a=2"), ["a": "2"], "a name given twice keeps its last value")
    }

    func testPlusIsASpaceAndAnEncodedPlusIsAPlus() {
        XCTAssertEqual(parse("q=a+b%2Bc&x+y=1"), ["q": "a b+c", "x y": "1"])
    }

    func testPercentEscapesAreBytesInEitherCase() {
        XCTAssertEqual(parse("a=%C3%a9t%C3%A9&b=%00"), ["a": "été", "b": "\u{0}"])
    }

    /// A `%` without two hex digits stays as it is; the rest of the field is still decoded
    /// (Foundation's `removingPercentEncoding`, used before, kept such a field raw, `+` included).
    func testAPercentWithoutTwoHexDigitsStaysAsItIs() {
        XCTAssertEqual(parse("a=%zz+1&b=50%&c=%4&d=%%41"), ["a": "%zz 1", "b": "50%", "c": "%4", "d": "%A"])
    }

    /// Bytes that are not UTF-8, raw or percent-encoded, read as U+FFFD; an escape completes a
    /// sequence that raw bytes began, since decoding happens after the escapes are bytes.
    func testBytesThatAreNotUTF8BecomeReplacementCharacters() {
        XCTAssertEqual(FormBody.parse([0x61, 0x3D, 0xFF, 0x25, 0x61, 0x39]), ["a": "\u{FFFD}\u{FFFD}"])
        XCTAssertEqual(FormBody.parse([0x61, 0x3D, 0xE2] + Array("%82%AC".utf8)), ["a": "€"])
        XCTAssertEqual(parse("a=%e9"), ["a": "\u{FFFD}"])
    }

    /// `&`, `=` and `+` are bytes: a combining mark after one does not hide it (the parser used
    /// before split Swift Characters, so `&` + U+0301 did not separate two fields).
    func testSeparatorsFollowedByCombiningMarksStillSeparate() {
        XCTAssertEqual(parse("a=1&\u{301}b=2"), ["a": "1", "\u{301}b": "2"])
        XCTAssertEqual(parse("a=\u{301}x+\u{301}"), ["a": "\u{301}x \u{301}"])
    }
}

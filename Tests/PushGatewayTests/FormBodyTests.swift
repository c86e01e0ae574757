import XCTest
import PushCore
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

    /// 20,000 bodies of up to 24 bytes drawn from the bytes that matter (`&`, `=`, `+`, `%`, hex
    /// digits of both cases, a non-hex letter, UTF-8 lead, continuation and invalid bytes),
    /// parsed by `FormBody.parse` and by the standard's steps as written (split, each piece at its
    /// first `=`, `+` as space, `%XX` as a byte, UTF-8 with replacement), which must agree.
    func testAgreesWithTheStandardsStepsOnDrawnBodies() {
        let alphabet = Array("&=+%09afAFgz".utf8) + [0xC3, 0xA9, 0xFF, 0x00]
        var random = SeededRandom(seed: 41)
        var escaped = 0
        for _ in 0..<20_000 {
            let body = (0..<Int(random.next() % 25)).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] }
            if body.contains(UInt8(ascii: "%")) { escaped += 1 }
            XCTAssertEqual(FormBody.parse(body), Self.standardParse(body), "\(body)")
        }
        XCTAssertGreaterThan(escaped, 5_000)
    }

    /// https://url.spec.whatwg.org/#urlencoded-parsing, step by step.
    private static func standardParse(_ body: [UInt8]) -> [String: String] {
        func percentDecode(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
            let input = Array(bytes)
            var output: [UInt8] = []
            var i = 0
            while i < input.count {
                if input[i] == 0x25, i + 2 < input.count, let value = UInt8(String(decoding: input[(i + 1)...(i + 2)], as: UTF8.self), radix: 16),
                   input[(i + 1)...(i + 2)].allSatisfy({ $0 != UInt8(ascii: "+") && $0 != UInt8(ascii: "-") }) {
                    output.append(value)
                    i += 3
                } else {
                    output.append(input[i])
                    i += 1
                }
            }
            return output
        }
        func text(_ bytes: ArraySlice<UInt8>) -> String {
            String(decoding: percentDecode(ArraySlice(bytes.map { $0 == UInt8(ascii: "+") ? UInt8(ascii: " ") : $0 })), as: UTF8.self)
        }
        var result: [String: String] = [:]
        for sequence in body.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let name: ArraySlice<UInt8>
            let value: ArraySlice<UInt8>
            if let equals = sequence.firstIndex(of: UInt8(ascii: "=")) {
                (name, value) = (sequence[..<equals], sequence[(equals + 1)...])
            } else {
                (name, value) = (sequence, [])
            }
            result[text(name)] = text(value)
        }
        return result
    }
}

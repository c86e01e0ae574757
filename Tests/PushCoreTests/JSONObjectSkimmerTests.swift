import Foundation
import PushCore
import TestSupport
import XCTest

/// The skimmer must accept exactly what the parser accepts and find the same top-level member.
final class JSONObjectSkimmerTests: XCTestCase {
    private let key = "CIO-Delivery-ID"

    /// What the skimmer should say, derived from a full parse.
    private func expected(_ bytes: [UInt8]) -> JSONObjectSkimmer.Verdict {
        guard let document = try? JSONDocument.parse(bytes), case .object = document.root else { return .notAnObject }
        return .object(captured: document.root[key]?.stringValue)
    }

    private func files(under directory: String) throws -> [URL] {
        let url = URL(fileURLWithPath: Fixtures.path(directory))
        return try FileManager.default.contentsOfDirectory(at: url, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "json" }
    }

    func testAgreesWithTheParserOnTheCorpusAndTheSamples() throws {
        let all = try files(under: "Tests/Corpus/payload") + files(under: "payloads/apns") + files(under: "payloads/fcm")
        XCTAssertGreaterThan(all.count, 15)
        for file in all {
            let bytes = try Array(Data(contentsOf: file))
            XCTAssertEqual(JSONObjectSkimmer.skim(bytes, capturing: key), expected(bytes), file.lastPathComponent)
        }
    }

    func testAgreesWithTheParserOnMutatedDocuments() throws {
        // Seeded single-byte edits with JSON's structural characters hit every branch: quotes,
        // escapes, commas, brackets, literals, numbers, control bytes and broken UTF-8.
        let seeds = try files(under: "payloads/apns").map { try Array(Data(contentsOf: $0)) }
            + [Array(#"{"CIO-Delivery-ID":"d1","a":[1,-2.5e3,true,false,null,{"b":"\u00e9\n"}],"CIO-Delivery-ID":"d2"}"#.utf8)]
        let alphabet = Array(#"{}[]":,\ u0123456789-+.eEtfnrl"#.utf8) + [0x00, 0x1F, 0x7F, 0xC3, 0xA9, 0xED, 0xA0, 0xFF]
        var random = SeededRandom(seed: 11)
        var objects = 0
        for round in 0..<6000 {
            var bytes = seeds[round % seeds.count]
            for _ in 0..<(1 + Int(random.next() % 3)) { random.edit(&bytes, from: alphabet) }
            let want = expected(bytes)
            if case .object = want { objects += 1 }
            XCTAssertEqual(JSONObjectSkimmer.skim(bytes, capturing: key), want, String(decoding: bytes, as: UTF8.self))
        }
        // Both outcomes were exercised, not only rejections.
        XCTAssertGreaterThan(objects, 300)
        XCTAssertLessThan(objects, 5700)
    }

    /// The skimmer scans plain string bytes eight at a time; a byte that ends the run (quote,
    /// backslash, control byte, non-ASCII) must be seen at every offset of a word, in keys and
    /// values, whatever the string's alignment in the body.
    func testAgreesWithTheParserWhereverASpecialByteSits() {
        let specials: [[UInt8]] = [[0x22], [0x5C], [0x5C, 0x6E], [0x00], [0x1F], [0x20], [0x21], [0x7F], [0x80], [0xC3, 0xA9],
                                   [0xC3], [0xE2, 0x82, 0xAC], [0xED, 0xA0, 0x80], [0xFF], [0x23], [0x5B], [0x5D], [0x5D, 0x5C]]
        var checked = 0, objects = 0
        for lead in 0..<8 {
            for length in 1...19 {
                for offset in 0..<length {
                    for special in specials {
                        var text = Array(repeating: UInt8(ascii: "a"), count: length)
                        text.replaceSubrange(offset..<offset + 1, with: special)
                        let pad = Array(repeating: UInt8(ascii: " "), count: lead)
                        let asValue = Array(#"{"#.utf8) + pad + Array(#""CIO-Delivery-ID":""#.utf8) + text + Array(#""}"#.utf8)
                        let asKey = Array(#"{"#.utf8) + pad + [UInt8(ascii: "\"")] + text + Array(#"":1,"CIO-Delivery-ID":"x"}"#.utf8)
                        for bytes in [asValue, asKey] {
                            let want = expected(bytes)
                            if case .object = want { objects += 1 }
                            XCTAssertEqual(JSONObjectSkimmer.skim(bytes, capturing: key), want, String(decoding: bytes, as: UTF8.self))
                            checked += 1
                        }
                    }
                }
            }
        }
        XCTAssertEqual(checked, 8 * 190 * specials.count * 2)
        XCTAssertGreaterThan(objects, checked / 4)
        XCTAssertLessThan(objects, checked * 3 / 4)
    }

    func testCapturesOnlyATopLevelStringMemberLastOneWinning() {
        func skim(_ text: String) -> JSONObjectSkimmer.Verdict { JSONObjectSkimmer.skim(Array(text.utf8), capturing: key) }
        XCTAssertEqual(skim(#"{"CIO-Delivery-ID":"a","CIO-Delivery-ID":"b"}"#), .object(captured: "b"))
        XCTAssertEqual(skim(#"{"CIO-Delivery-ID":"a","CIO-Delivery-ID":7}"#), .object(captured: nil))
        XCTAssertEqual(skim(#"{"x":{"CIO-Delivery-ID":"nested"}}"#), .object(captured: nil))
        XCTAssertEqual(skim(#"{"\u0043IO-Delivery-ID":"escaped key"}"#), .object(captured: "escaped key"))
        XCTAssertEqual(skim(#"{"CIO-Delivery-ID":"caf\u00e9"}"#), .object(captured: "café"))
        XCTAssertEqual(skim(#"["CIO-Delivery-ID"]"#), .notAnObject)
        XCTAssertEqual(skim(#"{"a":1,}"#), .notAnObject)
        XCTAssertEqual(skim(String(repeating: "{\"a\":", count: 600) + "1" + String(repeating: "}", count: 600)), .notAnObject)
    }
}

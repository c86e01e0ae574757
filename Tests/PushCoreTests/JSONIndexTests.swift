import Foundation
import PushCore
import TestSupport
import XCTest

/// The index must accept exactly what the parser accepts, and list exactly the parser's values
/// with every object cut down to the named members (at any depth).
final class JSONIndexTests: XCTestCase {
    private let names: JSONMemberNames = ["CIO-Delivery-ID", "aps", "alert", "title", "a", "b", "é"]

    /// What the index should hold, derived from a full parse; nil when the parser refuses.
    private func expected(_ bytes: [UInt8]) -> JSONValue? {
        (try? JSONDocument.parse(bytes))?.root.keepingMembers(named: names)
    }

    private func indexed(_ bytes: [UInt8]) -> JSONValue? {
        JSONIndex(bytes, keepingMembersNamed: names)?.root.listedValue
    }

    /// The `.json` files of `directories`, each with its name.
    private func samples(_ directories: String...) throws -> [(name: String, bytes: [UInt8])] {
        try directories.flatMap { directory in
            try FileManager.default.contentsOfDirectory(atPath: Fixtures.path(directory)).filter { $0.hasSuffix(".json") }.sorted()
                .map { name in (name, try Array(Data(contentsOf: URL(fileURLWithPath: Fixtures.path("\(directory)/\(name)"))))) }
        }
    }

    func testAgreesWithTheParserOnTheCorpusAndTheSamples() throws {
        let all = try samples("Tests/Corpus/payload", "payloads/apns", "payloads/fcm")
        XCTAssertGreaterThan(all.count, 15)
        for (name, bytes) in all { XCTAssertEqual(indexed(bytes), expected(bytes), name) }
    }

    /// Seeded edits of one to three bytes, from JSON's structural characters, escapes, control
    /// bytes and broken UTF-8, over the APNs samples and a document with every kind of value.
    func testAgreesWithTheParserOnMutatedDocuments() throws {
        let seeds = try samples("payloads/apns").map(\.bytes)
            + [Array(#"{"CIO-Delivery-ID":"d1","a":[1,-2.5e3,true,false,null,{"b":"\u00e9\n","c":{"a":[]}}],"\u00e9":"k","CIO-Delivery-ID":"d2"}"#.utf8)]
        let alphabet = Array(#"{}[]":,\ u0123456789-+.eEtfnrl"#.utf8) + [0x00, 0x1F, 0x7F, 0xC3, 0xA9, 0xED, 0xA0, 0xFF]
        var random = SeededRandom(seed: 12)
        let outcomes = (0..<6000).map { round in
            var bytes = seeds[round % seeds.count]
            (0...Int(random.next() % 3)).forEach { _ in random.edit(&bytes, from: alphabet) }
            let want = expected(bytes)
            XCTAssertEqual(indexed(bytes), want, String(decoding: bytes, as: UTF8.self))
            return want != nil
        }
        // Both outcomes were exercised, not only rejections.
        XCTAssertGreaterThan(outcomes.filter { $0 }.count, 300)
        XCTAssertGreaterThan(outcomes.filter { !$0 }.count, 300)
    }

    /// Strings are scanned eight bytes at a time; a byte that ends the run must be seen at every
    /// offset, in listed and skipped keys and values.
    func testAgreesWithTheParserWhereverASpecialByteSits() {
        let specials: [[UInt8]] = [[0x22], [0x5C], [0x5C, 0x6E], [0x00], [0x1F], [0x80], [0xC3, 0xA9], [0xC3], [0xED, 0xA0, 0x80], [0xFF], [0x5D]]
        var documents = 0, checked = 0
        for length in 1...17 {
            for offset in 0..<length {
                for special in specials {
                    var text = Array(repeating: UInt8(ascii: "a"), count: length)
                    text.replaceSubrange(offset..<offset + 1, with: special)
                    let asValue = Array(#"{"a":""#.utf8) + text + Array(#"","z":""#.utf8) + text + Array(#""}"#.utf8)
                    let asKey = Array(#"{""#.utf8) + text + Array(#"":1,"b":[""#.utf8) + text + Array(#""]}"#.utf8)
                    for bytes in [asValue, asKey] {
                        let want = expected(bytes)
                        if want != nil { documents += 1 }
                        XCTAssertEqual(indexed(bytes), want, String(decoding: bytes, as: UTF8.self))
                        checked += 1
                    }
                }
            }
        }
        XCTAssertGreaterThan(documents, checked / 4)
        XCTAssertLessThan(documents, checked * 3 / 4)
    }

    func testMemberFindsTheLastListedOneAndNothingUnlisted() throws {
        let index = try XCTUnwrap(JSONIndex(Array(#"{"a":"x","skipped":"y","a":{"b":[1,"two"],"c":3},"\u0062":null}"#.utf8), keepingMembersNamed: names))
        let a = try XCTUnwrap(index.root.member("a"))
        XCTAssertTrue(a.isObject)
        XCTAssertEqual(a.member("b")?.elements?.count, 2)
        XCTAssertEqual(a.member("b")?.elements?.last?.stringValue, "two")
        XCTAssertTrue(a.member("b")?.elements?.last?.isString("two") == true)
        XCTAssertFalse(a.member("b")?.elements?.last?.isString("tw") == true)
        XCTAssertNil(a.member("c"), "not named, so not listed")
        XCTAssertNil(index.root.member("skipped"))
        XCTAssertEqual(index.root.member("b")?.isNull, true, "a key written with an escape is found by its text")
        XCTAssertEqual(index.root.typeName, "object")
        XCTAssertNil(JSONIndex(Array(#"{"a":1,}"#.utf8), keepingMembersNamed: names))
        XCTAssertNil(JSONIndex(Array((String(repeating: "[", count: 600) + String(repeating: "]", count: 600)).utf8), keepingMembersNamed: names))
    }
}

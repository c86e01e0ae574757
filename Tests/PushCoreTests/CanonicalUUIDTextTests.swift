import Foundation
import PushCore
import XCTest

/// `CanonicalUUIDText`, the inline form of the gateway's apns-id and apns-unique-id: it takes
/// exactly what `APNsID.isCanonical` takes, keeps the bytes as given (letter case included: APNs
/// echoes what it got), reads back as the same string, and `RandomUUIDSource.nextText` makes
/// fresh lowercase version 4 ids in it.
final class CanonicalUUIDTextTests: XCTestCase {
    let lower = "9f4a4c1e-6b1d-4f1e-9a7e-0c1b2d3e4f50"
    let mixed = "9F4A4c1e-6B1d-4f1E-9a7e-0C1b2D3e4F50"

    func testACanonicalIdIsKeptByteForByteInAnyLetterCase() throws {
        for id in [lower, mixed, lower.uppercased(), "00000000-0000-0000-0000-000000000000"] {
            let text = try XCTUnwrap(CanonicalUUIDText(id), id)
            XCTAssertEqual(text.string, id)
            XCTAssertEqual(text.description, id)
            XCTAssertEqual(text.withBytes { Array($0) }, Array(id.utf8))
            let fromBytes = try XCTUnwrap(Array(id.utf8).withUnsafeBufferPointer { CanonicalUUIDText(bytes: $0) })
            XCTAssertEqual(fromBytes, text)
            XCTAssertEqual(try XCTUnwrap(APNsID(header: id)).text, text, "APNsID's text is its header's bytes")
        }
    }

    func testTakesExactlyWhatIsCanonicalTakes() {
        let base = Array(lower.utf8)
        var candidates: [[UInt8]] = [[], Array(base.dropLast()), base + [UInt8(ascii: "0")], Array(" \(lower)".utf8)]
        for position in 0..<base.count {
            for byte: UInt8 in [0, UInt8(ascii: "-"), UInt8(ascii: "g"), UInt8(ascii: "G"), UInt8(ascii: "F"), UInt8(ascii: "0"), 0xFF] {
                var bytes = base
                bytes[position] = byte
                candidates.append(bytes)
            }
        }
        for bytes in candidates {
            let canonical = bytes.withUnsafeBufferPointer { APNsID.isCanonical(bytes: $0) }
            let text = bytes.withUnsafeBufferPointer { CanonicalUUIDText(bytes: $0) }
            XCTAssertEqual(text != nil, canonical, "\(bytes)")
            XCTAssertEqual(text?.withBytes { Array($0) }, canonical ? bytes : nil)
            let string = String(decoding: bytes, as: UTF8.self)
            XCTAssertEqual(CanonicalUUIDText(string) != nil, APNsID.isCanonical(string), string)
        }
    }

    func testEqualityAndHashFollowTheBytes() throws {
        let a = try XCTUnwrap(CanonicalUUIDText(lower)), b = try XCTUnwrap(CanonicalUUIDText(lower))
        let upper = try XCTUnwrap(CanonicalUUIDText(lower.uppercased()))
        let last = try XCTUnwrap(CanonicalUUIDText(String(lower.dropLast()) + "1"))
        XCTAssertEqual(a, b)
        XCTAssertNotEqual(a, upper, "the letter case is part of the text")
        XCTAssertNotEqual(a, last, "the last byte counts")
        XCTAssertEqual(Set([a, b, upper, last]).count, 3)
    }

    func testNextTextIsAFreshLowercaseVersion4Id() throws {
        let ids = RandomUUIDSource()
        let shape = try NSRegularExpression(pattern: "^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")
        var seen = Set<CanonicalUUIDText>()
        for _ in 0..<2000 {
            let text = ids.nextText()
            let id = text.string
            XCTAssertEqual(shape.numberOfMatches(in: id, range: NSRange(id.startIndex..., in: id)), 1, id)
            XCTAssertEqual(CanonicalUUIDText(id), text, "reads back as itself")
            seen.insert(text)
        }
        XCTAssertEqual(seen.count, 2000)
    }
}

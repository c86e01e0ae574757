import Foundation
import PushCore
import XCTest

/// `APNsID.isCanonical(bytes:)` (the gateway's check over the received bytes) against the rule
/// spelled out position by position (docs/specs/apns.md: 8-4-4-4-12 hex digits, either case),
/// over drawn ids and ids with every byte value at every position, every length around 36, and
/// the string entry point.
final class APNsIDByteCheckTests: XCTestCase {
    /// The rule, written plainly: a hyphen at 8, 13, 18, 23; 0-9, a-f or A-F everywhere else.
    private func spelledOut(_ bytes: [UInt8]) -> Bool {
        guard bytes.count == 36 else { return false }
        let hex = Set("0123456789abcdefABCDEF".utf8)
        for (index, byte) in bytes.enumerated() {
            if [8, 13, 18, 23].contains(index) {
                if byte != UInt8(ascii: "-") { return false }
            } else if !hex.contains(byte) {
                return false
            }
        }
        return true
    }

    private func check(_ bytes: [UInt8], file: StaticString = #filePath, line: UInt = #line) {
        let expected = spelledOut(bytes)
        XCTAssertEqual(bytes.withUnsafeBufferPointer { APNsID.isCanonical(bytes: $0) }, expected,
                       "bytes \(bytes)", file: file, line: line)
        let text = String(decoding: bytes, as: UTF8.self)
        if Array(text.utf8) == bytes {  // a byte that is not UTF-8 becomes U+FFFD in a string
            XCTAssertEqual(APNsID.isCanonical(text), expected, text, file: file, line: line)
            XCTAssertEqual(APNsID(header: text) != nil, expected, text, file: file, line: line)
        }
    }

    func testAgreesWithTheSpelledOutRuleForEveryByteAtEveryPosition() {
        let lower = Array("9f4a4c1e-6b1d-4f1e-9a7e-0c1b2d3e4f50".utf8)
        let upper = Array("9F4A4C1E-6B1D-4F1E-9A7E-0C1B2D3E4F50".utf8)
        check(lower)
        check(upper)
        for base in [lower, upper] {
            for position in 0..<base.count {
                for value in 0...255 {
                    var edited = base
                    edited[position] = UInt8(value)
                    check(edited)
                }
            }
        }
    }

    func testAgreesOnDrawnIdsAndEveryLengthAroundACanonicalOne() {
        var random = SeededRandom(seed: 40)
        let ids = RandomUUIDSource()
        for round in 0..<500 {
            var id = Array(ids.next().utf8)
            if round % 2 == 1 { id = Array(String(decoding: id, as: UTF8.self).uppercased().utf8) }
            // Mixed case, then a few bytes drawn from the id's own alphabet and beyond it.
            for index in id.indices where random.next() % 3 == 0 && id[index] >= UInt8(ascii: "a") {
                id[index] -= 0x20
            }
            check(id)
            var edited = id
            for _ in 0..<Int(random.next() % 3) {
                let alphabet = Array("0123456789abcdefABCDEF-gG/:@`{ \u{7F}".utf8)
                edited[Int(random.next() % 36)] = alphabet[Int(random.next() % UInt64(alphabet.count))]
            }
            check(edited)
        }
        let canonical = Array("9f4a4c1e-6b1d-4f1e-9a7e-0c1b2d3e4f50".utf8)
        for length in 0...40 {
            check(Array((canonical + canonical).prefix(length)))
            check(Array(repeating: UInt8(ascii: "a"), count: length))
        }
        // Hyphens moved: 8-4-4-4-12 only.
        check(Array("9f4a4c1e6-b1d-4f1e-9a7e-0c1b2d3e4f50".utf8))
        check(Array("9f4a4c1e-6b1d-4f1e-9a7e0-c1b2d3e4f50".utf8))
    }
}

import Foundation
import PushCore
import TestSupport
import XCTest

/// `UUID(fastUUIDString:)` must give exactly what `UUID(uuidString:)` gives: canonical strings
/// of either case (read by table), and nearly canonical ones (handed to `UUID(uuidString:)`,
/// which takes some of them).
final class UUIDTextTests: XCTestCase {
    private static let hex = Array("0123456789abcdefABCDEF".utf8)
    /// Bytes an edit puts in: hex digits, the dash, what `sscanf`'s `%2hhx` skips or reads
    /// (space, sign, `x`), letters past `f`, a NUL, non-ASCII.
    private static let edits = Array("0aF- +x0gG:\t".utf8) + [0x00, 0x7F, 0xC3, 0xA9]

    private func drawnCanonical(_ random: inout SeededRandom) -> [UInt8] {
        var text: [UInt8] = []
        for (n, group) in [8, 4, 4, 4, 12].enumerated() {
            if n > 0 { text.append(UInt8(ascii: "-")) }
            for _ in 0..<group { text.append(Self.hex[Int(random.next() % UInt64(Self.hex.count))]) }
        }
        return text
    }

    func testAgreesWithUUIDStringOnDrawnStrings() {
        var random = SeededRandom(seed: 4120)
        var canonical = 0, odd = 0, refused = 0
        for n in 0..<6_000 {
            var text = drawnCanonical(&random)
            if n % 2 == 1 {
                for _ in 0...(random.next() % 2) { random.edit(&text, from: Self.edits) }
            }
            let string = String(decoding: text, as: UTF8.self)
            let want = UUID(uuidString: string)
            XCTAssertEqual(UUID(fastUUIDString: string), want, string.debugDescription)
            if n % 2 == 0 { canonical += 1; XCTAssertNotNil(want) } else if want != nil { odd += 1 } else { refused += 1 }
        }
        // The edits reach both sides of `UUID(uuidString:)`'s verdict.
        XCTAssertGreaterThan(odd, 100)
        XCTAssertGreaterThan(refused, 100)
        XCTAssertEqual(canonical, 3_000)
    }

    func testEachFormOnItsOwn() {
        let id = "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"
        XCTAssertEqual(UUID(fastUUIDString: id)?.uuidString, id)
        XCTAssertEqual(UUID(fastUUIDString: id.lowercased()), UUID(uuidString: id))
        for text in ["", id + "0", String(id.dropLast()), id.replacingOccurrences(of: "-", with: "_"),
                     "E621E1F8-C36C-495A-93FC-0C247A3E6E5G", " 621E1F8-C36C-495A-93FC-0C247A3E6E5F", "0x21E1F8-C36C-495A-93FC-0C247A3E6E5F"] {
            XCTAssertEqual(UUID(fastUUIDString: text), UUID(uuidString: text), text)
        }
    }
}

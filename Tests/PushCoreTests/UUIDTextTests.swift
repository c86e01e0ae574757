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

    /// `appendUUIDString(to:)` writes `uuidString`'s bytes: drawn UUIDs (every byte value in every
    /// position over the draws), the zero and all-ones UUIDs, appended after what `out` holds.
    func testAppendUUIDStringWritesWhatUUIDStringWrites() {
        var random = SeededRandom(seed: 4121)
        var ids = [UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)),
                   UUID(uuid: (255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255))]
        for _ in 0..<4_000 {
            var b = [UInt8](repeating: 0, count: 16)
            for k in 0..<16 { b[k] = UInt8(truncatingIfNeeded: random.next()) }
            ids.append(UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15])))
        }
        for id in ids {
            var out = Array("x".utf8)
            id.appendUUIDString(to: &out)
            XCTAssertEqual(out, Array("x".utf8) + Array(id.uuidString.utf8), id.uuidString)
        }
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

import Foundation
import PushCore
import TestSupport
import XCTest

/// The byte searches of ByteSearch.swift against plain Swift readings of the same question.
final class ByteSearchTests: XCTestCase {
    /// The reading before `endOfPlainJSONText`: one byte at a time.
    private func endByteByByte(_ bytes: [UInt8], from start: Int) -> Int {
        var k = start
        while k < bytes.count {
            let b = bytes[k]
            if b == UInt8(ascii: "\"") || b == UInt8(ascii: "\\") || b < 0x20 || b >= 0x80 { return k }
            k += 1
        }
        return bytes.count
    }

    /// Every byte value that ends a run, and its neighbours that do not, at every offset of the
    /// first three words after every start in a word, and runs that end with the bytes.
    func testEndOfPlainJSONTextFindsEachSpecialByteAtEveryOffset() {
        let probes: [UInt8] = [0x22, 0x5C, 0x00, 0x01, 0x1F, 0x80, 0xBF, 0xC3, 0xFF, 0x20, 0x21, 0x23, 0x5B, 0x5D, 0x7F, 0x61]
        var checked = 0, found = 0
        for length in 0...26 {
            for start in 0...min(length, 9) {
                for offset in 0..<length {
                    for probe in probes {
                        var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: length)
                        bytes[offset] = probe
                        let want = endByteByByte(bytes, from: start)
                        XCTAssertEqual(bytes.endOfPlainJSONText(from: start), want, "\(bytes) from \(start)")
                        XCTAssertEqual(bytes.withUnsafeBufferPointer { $0.endOfPlainJSONText(from: start) }, want)
                        checked += 1
                        if want < length { found += 1 }
                    }
                }
            }
        }
        XCTAssertGreaterThan(found, checked / 4)
        XCTAssertLessThan(found, checked)
        // Past the end and on an empty array: the count.
        XCTAssertEqual([UInt8]().endOfPlainJSONText(from: 0), 0)
        XCTAssertEqual(Array("ab".utf8).endOfPlainJSONText(from: 3), 2)
    }

    /// Drawn byte strings (mostly plain, some of every kind of byte), from every start.
    func testEndOfPlainJSONTextAgreesOnDrawnBytes() {
        var random = SeededRandom(seed: 4118)
        for _ in 0..<2_000 {
            let count = Int(random.next() % 70)
            let bytes = (0..<count).map { _ -> UInt8 in
                random.chance(0.9) ? UInt8(0x20 + random.next() % 0x60) : UInt8(truncatingIfNeeded: random.next())
            }
            for start in 0...count {
                XCTAssertEqual(bytes.endOfPlainJSONText(from: start), endByteByByte(bytes, from: start), "\(bytes) from \(start)")
            }
        }
    }

    func testHasBytesAgreesWithElementsEqual() {
        let bytes = Array(#"{"delivery_id":"x","id":"i"}"#.utf8)
        let literals: [StaticString] = ["delivery_id", "id", "i", "", "{\"", "\"}", "x\"", "delivery_idx"]
        for literal in literals {
            let text = literal.withUTF8Buffer { Array($0) }
            for offset in -2...(bytes.count + 2) {
                let want = offset >= 0 && offset <= bytes.count && bytes.count - offset >= text.count
                    && bytes[offset..<(offset + text.count)].elementsEqual(text)
                XCTAssertEqual(bytes.hasBytes(literal, at: offset), want, "\(literal) at \(offset)")
            }
        }
        XCTAssertTrue(bytes.hasBytes("delivery_id", at: 2))
        XCTAssertFalse([UInt8]().hasBytes("a", at: 0))
        XCTAssertTrue([UInt8]().hasBytes("", at: 0))
    }

    /// Every literal length up to 24 (one word, two words, `memcmp`), the literal in bytes with one
    /// byte changed at each position, at every offset and with the bytes cut short.
    func testHasBytesComparesEveryByteOfEveryLength() {
        let literals: [StaticString] = [
            "a", "ab", "abc", "abcd",
            "abcde", "abcdef", "abcdefg", "abcdefgh",
            "abcdefghi", "abcdefghij", "abcdefghijk", "abcdefghijkl",
            "abcdefghijklm", "abcdefghijklmn", "abcdefghijklmno", "abcdefghijklmnop",
            "abcdefghijklmnopq", "abcdefghijklmnopqr", "abcdefghijklmnopqrs", "abcdefghijklmnopqrst",
            "abcdefghijklmnopqrstu", "abcdefghijklmnopqrstuv", "abcdefghijklmnopqrstuvw", "abcdefghijklmnopqrstuvwx"]
        for literal in literals {
            let text = literal.withUTF8Buffer { Array($0) }
            let padded = [UInt8](repeating: UInt8(ascii: "#"), count: 3) + text + [UInt8(ascii: "#")]
            XCTAssertTrue(padded.hasBytes(literal, at: 3), "\(literal)")
            XCTAssertTrue(text.hasBytes(literal, at: 0), "\(literal)")
            XCTAssertFalse(Array(text.dropLast()).hasBytes(literal, at: 0), "\(literal) cut short")
            for offset in [0, 1, 2, 4] { XCTAssertFalse(padded.hasBytes(literal, at: offset), "\(literal) at \(offset)") }
            for k in text.indices {
                for flip: UInt8 in [0x01, 0x80, 0x20] {
                    var changed = padded
                    changed[3 + k] ^= flip
                    XCTAssertFalse(changed.hasBytes(literal, at: 3), "\(literal) with byte \(k) changed by \(flip)")
                }
            }
        }
    }

    func testArrayFirstIndexInRangeAgreesWithTheSlice() {
        var random = SeededRandom(seed: 4119)
        for _ in 0..<500 {
            let bytes = (0..<Int(random.next() % 40)).map { _ in UInt8(ascii: "a") + UInt8(random.next() % 4) }
            let lower = Int(random.next() % UInt64(bytes.count + 1))
            let upper = lower + Int(random.next() % UInt64(bytes.count - lower + 1))
            XCTAssertEqual(bytes.firstIndex(of: UInt8(ascii: "b"), in: lower..<upper), bytes[lower..<upper].firstIndex(of: UInt8(ascii: "b")))
        }
    }
}

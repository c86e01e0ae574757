@testable import PushCore
import XCTest

/// Line and column, found eight bytes at a time (`JSONLineCounter`: `JSONSourceLocation(offset:in:)`
/// and `JSONDocument.locations(ofOffsets:)`), against the byte loop they replaced: a line feed
/// starts line + 1 at column 1, every byte that is not `10xxxxxx` is one column.
final class JSONSourceLocationTests: XCTestCase {
    private func byteLoop(_ offset: Int, in source: [UInt8]) -> JSONSourceLocation {
        var line = 1, column = 1
        for b in source.prefix(min(offset, source.count)) {
            if b == 0x0A { line += 1; column = 1 } else if b & 0xC0 != 0x80 { column += 1 }
        }
        return JSONSourceLocation(offset: offset, line: line, column: column)
    }

    private func checkEveryOffset(_ bytes: [UInt8], file: StaticString = #filePath, line: UInt = #line) {
        let all = Array(0...bytes.count + 1)
        let found = JSONDocument(root: .null, rootOffset: 0, source: bytes).locations(ofOffsets: all)
        XCTAssertEqual(found.count, bytes.count + 1, "offsets past the end get none: \(bytes)", file: file, line: line)
        for offset in all {
            let want = byteLoop(offset, in: bytes)
            XCTAssertEqual(JSONSourceLocation(offset: offset, in: bytes), want, "\(bytes) at \(offset)", file: file, line: line)
            if offset <= bytes.count { XCTAssertEqual(found[offset], want, "\(bytes) at \(offset), many", file: file, line: line) }
        }
    }

    /// Each kind of byte (line feed, continuation bytes, lead bytes, others) at every offset of
    /// the first words, alone and with a second line feed elsewhere.
    func testEachKindOfByteAtEveryOffset() {
        let probes: [UInt8] = [0x0A, 0x80, 0xBF, 0xC3, 0xE6, 0xF0, 0xFF, 0x7F, 0x40, 0x00, 0x0B, 0x0D, 0x8A, 0x4A]
        for length in 1...26 {
            for offset in 0..<length {
                for probe in probes {
                    var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: length)
                    bytes[offset] = probe
                    checkEveryOffset(bytes)
                    bytes[(offset * 7 + 3) % length] = 0x0A
                    checkEveryOffset(bytes)
                }
            }
        }
        checkEveryOffset([])
    }

    /// Drawn texts (ASCII, line feeds, multi-byte UTF-8, stray bytes) and drawn sets of offsets.
    func testDrawnTextsAndOffsets() {
        var random = SeededRandom(seed: 2145)
        let pieces: [[UInt8]] = [[0x0A], Array("é".utf8), Array("日本".utf8), Array("😀".utf8), [0x80], [0xFF], [0x0A, 0x0A]]
        for _ in 0..<600 {
            var bytes: [UInt8] = []
            for _ in 0..<Int(random.next() % 120) {
                if random.chance(0.7) { bytes.append(UInt8(0x20 + random.next() % 0x5F)) } else { bytes += pieces[Int(random.next() % UInt64(pieces.count))] }
            }
            let offsets = (0..<Int(random.next() % 12)).map { _ in Int(random.next() % UInt64(bytes.count + 3)) }
            let found = JSONDocument(root: .null, rootOffset: 0, source: bytes).locations(ofOffsets: offsets)
            for offset in offsets where offset <= bytes.count {
                XCTAssertEqual(found[offset], byteLoop(offset, in: bytes), "\(bytes) at \(offset)")
            }
            XCTAssertEqual(found.count, Set(offsets.filter { $0 <= bytes.count }).count)
        }
    }
}

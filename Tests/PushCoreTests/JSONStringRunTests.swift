@testable import PushCore
import XCTest

/// The parser's string reader and the serializer pass plain bytes eight at a time
/// (`endOfPlainJSONText`); here every byte that ends a run, at every offset of the first words,
/// and drawn strings, against what a byte-by-byte reading gives.
final class JSONStringRunTests: XCTestCase {
    /// The serializer's byte loop before runs: `"`, `\`, controls escaped (`/` when asked).
    private func writtenByteByByte(_ s: String, escapingSlashes: Bool = false) -> [UInt8] {
        var out: [UInt8] = [0x22]
        for b in s.utf8 {
            switch b {
            case 0x22: out += [0x5C, 0x22]
            case 0x2F where escapingSlashes: out += [0x5C, 0x2F]
            case 0x5C: out += [0x5C, 0x5C]
            case 0x0A: out += Array("\\n".utf8)
            case 0x0D: out += Array("\\r".utf8)
            case 0x09: out += Array("\\t".utf8)
            case 0x08: out += Array("\\b".utf8)
            case 0x0C: out += Array("\\f".utf8)
            case 0..<0x20: out += Array(String(format: "\\u%04x", Int(b)).utf8)
            default: out.append(b)
            }
        }
        return out + [0x22]
    }

    private func parsed(_ bytes: [UInt8]) -> Result<JSONValue, JSONParseError> {
        do { return .success(try JSONParser().parse(bytes).root) } catch { return .failure(error) }
    }

    /// `"aaa…X…aaa"` with X each byte that ends a run: where the parser stops, and why.
    func testEachRunEndingByteAtEveryOffsetOfAString() {
        for length in 1...26 {
            for k in 0..<length {
                func text(_ probe: [UInt8]) -> [UInt8] {
                    var body = [UInt8](repeating: UInt8(ascii: "a"), count: length)
                    body.replaceSubrange(k...k, with: probe)
                    return [0x22] + body + [0x22]
                }
                let at = 1 + k  // the probe's offset in the text
                for control: UInt8 in [0x00, 0x01, 0x0A, 0x1F] {
                    if case .failure(let e) = parsed(text([control])) {
                        XCTAssertEqual(e.reason, .controlCharacterInString(byte: control))
                        XCTAssertEqual(e.offset, at)
                    }
                }
                for bad: [UInt8] in [[0x80], [0xFF], [0xC3], [0xC0, 0x80], [0xED, 0xA0, 0x80]] {
                    guard case .failure(let e) = parsed(text(bad)) else { XCTFail("\(bad) at \(k) parsed"); continue }
                    XCTAssertEqual(e.reason, .invalidUTF8, "\(bad) at \(k)")
                    XCTAssertEqual(e.offset, at, "\(bad) at \(k)")
                }
                let plain = String(repeating: "a", count: k), rest = String(repeating: "a", count: length - k - 1)
                XCTAssertEqual(try? parsed(text(Array("é".utf8))).get(), .string(plain + "é" + rest))
                XCTAssertEqual(try? parsed(text(Array("😀".utf8))).get(), .string(plain + "😀" + rest))
                XCTAssertEqual(try? parsed(text(Array("\\n".utf8))).get(), .string(plain + "\n" + rest))
                XCTAssertEqual(try? parsed(text(Array("\\u00e9".utf8))).get(), .string(plain + "é" + rest))
                XCTAssertEqual(try? parsed(text(Array("\\\"".utf8))).get(), .string(plain + "\"" + rest))
                guard case .failure(let early) = parsed(text([0x22])) else { XCTFail("a quote at \(k) ends the string early"); continue }
                XCTAssertEqual(early.offset, at + 1, "after the string that ends at \(k)")
                guard case .failure(let open) = parsed(Array(text([0x61]).dropLast())) else { XCTFail("unclosed"); continue }
                XCTAssertEqual(open.offset, length + 1)
            }
        }
    }

    /// Drawn strings of plain text, multi-byte characters, controls and every escape: parsed
    /// from their JSON text, written back as the byte loop writes them, counted as written.
    func testDrawnStringsParseAndWriteAsByteByByte() throws {
        let pieces: [(value: String, text: String)] = [
            ("a", "a"), ("abcdefghij", "abcdefghij"), ("é", "é"), ("日", "日"), ("😀", "😀"), ("\n", "\\n"), ("\"", "\\\""),
            ("\\", "\\\\"), ("é", "\\u00e9"), ("😀", "\\ud83d\\ude00"), ("/", "\\/"), ("/", "/"), ("\u{1}", "\\u0001"),
            ("\u{7F}", "\u{7F}"), ("\t", "\\t"), ("\u{1F}", "\\u001F"),
        ]
        var random = SeededRandom(seed: 4521)
        for _ in 0..<3_000 {
            var value = "", text = ""
            for _ in 0..<Int(random.next() % 24) {
                let p = pieces[Int(random.next() % UInt64(pieces.count))]
                value += p.value
                text += p.text
            }
            let root = try JSONParser().parse(Array("\"\(text)\"".utf8)).root
            XCTAssertEqual(root, .string(value), text)
            let written = writtenByteByByte(value)
            XCTAssertEqual(root.minifiedBytes(), written, text)
            XCTAssertEqual(root.minifiedByteCount, written.count, text)
            var slashes: [UInt8] = []
            JSONValue.appendQuotedEscapingSlashes(value, to: &slashes)
            XCTAssertEqual(slashes, writtenByteByByte(value, escapingSlashes: true), text)
        }
    }
}

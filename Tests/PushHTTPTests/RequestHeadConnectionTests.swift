import PushCore
@testable import PushHTTP
import XCTest

/// `RequestHead.parse` reads the framing fields' names by ASCII case folding and an ASCII
/// Connection value on its bytes; both must decide what `lowercased()` and a split on
/// Characters decided.
final class RequestHeadConnectionTests: XCTestCase {
    /// `head`: the request line and fields, without the blank line that ends them.
    private func parse(_ head: String) -> RequestHead? {
        let bytes = Array(head.utf8)
        return bytes.withUnsafeBufferPointer { buffer in
            guard case .success(let parsed) = RequestHead.parse(buffer, maxHeaderListBytes: 1 << 16) else { return nil }
            return parsed
        }
    }

    /// 4,000 Connection values drawn from pieces that matter (the two options in several cases,
    /// commas, spaces and tabs, U+212A KELVIN SIGN, which lowercases to "k", and a combining
    /// mark, which joins the comma or space before it into one Character), on HTTP/1.0 and 1.1:
    /// keep-alive as the standard reading of the options (lowercased, split on Characters,
    /// trimmed) gives it.
    func testConnectionOptionsAsCharactersGiveThem() {
        let pieces = ["close", "CLOSE", "Close", "keep-alive", "Keep-Alive", "KEEP-ALIVE", ",", ",", " ", "\t", "x",
                      "\u{212A}eep-alive", "\u{301}", "clo", "se", "cl\u{C5}se"]
        var random = SeededRandom(seed: 17)
        var decided = Set<Bool>()
        for _ in 0..<4_000 {
            let value = (0..<Int(random.next() % 6)).map { _ in pieces[Int(random.next() % UInt64(pieces.count))] }.joined()
            for minor in [0, 1] {
                guard let head = parse("GET / HTTP/1.\(minor)\r\nConnection: \(value)") else {
                    return XCTFail("refused \(value.debugDescription)")
                }
                let trimmed = value.trimmingCharacters(in: .init(charactersIn: " \t"))
                let options = trimmed.lowercased().split(separator: ",").map { $0.trimmingCharacters(in: .init(charactersIn: " \t")) }
                var keepAlive = minor >= 1
                if options.contains("close") { keepAlive = false }
                if options.contains("keep-alive") && minor == 0 { keepAlive = true }
                XCTAssertEqual(head.keepAlive, keepAlive, "HTTP/1.\(minor) Connection: \(value.debugDescription)")
                decided.insert(head.keepAlive)
            }
        }
        XCTAssertEqual(decided, [true, false])
    }

    func testFramingFieldNamesInAnyCase() {
        XCTAssertEqual(parse("POST / HTTP/1.1\r\ncOnTeNt-LeNgTh: 12")?.contentLength, 12)
        XCTAssertEqual(parse("POST / HTTP/1.1\r\nTRANSFER-ENCODING: Chunked")?.chunked, true)
        XCTAssertEqual(parse("POST / HTTP/1.1\r\nExpect: 100-Continue")?.expectsContinue, true)
        XCTAssertEqual(parse("GET / HTTP/1.1\r\nCONNECTION: Close")?.keepAlive, false)
        XCTAssertEqual(parse("POST / HTTP/1.1\r\ncontent-lengthx: 12")?.contentLength, 0)
        XCTAssertEqual(parse("GET / HTTP/1.1\r\nconnectio: close")?.keepAlive, true)
    }
}

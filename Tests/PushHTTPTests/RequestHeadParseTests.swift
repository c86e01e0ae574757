import Foundation
@testable import PushHTTP
import PushCore
import TestSupport
import XCTest

/// `RequestHead.parse` finds lines and the request line's spaces with `memchr`, tells token
/// characters by bit mask and reads a Connection value that is not ASCII on Characters only
/// when it could name `close` or `keep-alive`. Each must decide what the plain reading (every
/// byte compared, every non-ASCII Connection value on Characters) decided.
final class RequestHeadParseTests: XCTestCase {
    /// RFC 9110 §5.6.2: tchar = "!" / "#" / "$" / "%" / "&" / "'" / "*" / "+" / "-" / "." / "^" /
    /// "_" / "`" / "|" / "~" / DIGIT / ALPHA.
    func testTokenCharactersAreTheRFCList() {
        let listed = Set("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ".utf8)
        for byte in 0...255 {
            XCTAssertEqual(RequestHead.isTokenCharacter(UInt8(byte)), listed.contains(UInt8(byte)), "byte \(byte)")
        }
    }

    /// What `connectionSays` relies on to skip the Character reading: the only scalar beyond
    /// ASCII whose lowercase mapping holds a Character equal to a letter of "close" or
    /// "keep-alive" (or its `-`) is U+212A KELVIN SIGN ("k"), which "eep-alive" leaves out; and
    /// `lowercased()` maps scalar by scalar (no context: a final sigma stays σ).
    func testOnlyTheKelvinSignLowercasesIntoAnOptionsLetter() {
        let letters = Set("closekeep-alive")
        var found: [UInt32] = []
        for value in UInt32(0x80)...0x10FFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }  // surrogates
            if String(scalar).lowercased().contains(where: letters.contains) { found.append(value) }
        }
        XCTAssertEqual(found, [0x212A])
        for text in ["\u{391}\u{3A3}", "\u{3A3} CLOSE,", "\u{130}\u{301}K\u{212A}", "\u{EC}\u{FFFD}Keep-\u{130}live", "\u{1E9E}\u{2126}"] {
            XCTAssertEqual(text.lowercased(), text.unicodeScalars.map(\.properties.lowercaseMapping).joined(), text)
        }
    }

    /// Every head of the seeds, regressions and kept corpus of Fuzz/FuzzHTTP1, each with eight
    /// seeded byte edits (spaces, tabs, colons, commas, CR, LF, case, bytes beyond ASCII and the
    /// KELVIN SIGN's), and Connection values drawn from such pieces: `parse` gives the plain
    /// reading's head or failure.
    func testParseAgreesWithThePlainReading() throws {
        var heads: [[UInt8]] = []
        for folder in ["Fuzz/seeds/FuzzHTTP1", "Tests/Corpus/fuzz-regressions/FuzzHTTP1", "Fuzz/corpus/FuzzHTTP1"] {
            let path = Fixtures.path(folder)
            for file in try FileManager.default.contentsOfDirectory(atPath: path).sorted() {
                let input = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path + "/" + file)))
                heads += Self.heads(in: Array(input.dropFirst())).prefix(6)
            }
        }
        XCTAssertGreaterThan(heads.count, 1_000)
        let alphabet = Array(" \t:,\r\nCcKkLlOoSsEe-aP0/".utf8) + [0x00, 0x7F, 0x80, 0xEC, 0xE2, 0x84, 0xAA, 0xC4, 0xB0]
        var random = SeededRandom(seed: 41)
        var outcomes: [String: Int] = [:]
        for head in heads {
            var edited = head
            for round in 0..<9 {
                if round > 0, !edited.isEmpty { random.edit(&edited, from: alphabet) }
                let outcome = Self.compare(edited)
                outcomes[outcome, default: 0] += 1
                if outcome == "differs" { return XCTFail("differs on \(String(decoding: edited, as: UTF8.self).debugDescription)") }
            }
        }
        for value in Self.drawnConnectionValues(count: 3_000) {
            for version in ["HTTP/1.0", "HTTP/1.1"] {
                let outcome = Self.compare(Array("GET / \(version)\r\nHost: a\r\nConnection: ".utf8) + value)
                outcomes[outcome, default: 0] += 1
                if outcome == "differs" { return XCTFail("differs on \(String(decoding: value, as: UTF8.self).debugDescription)") }
            }
        }
        // Both readings were reached, and both verdicts of keep-alive.
        for outcome in ["keep-alive", "close", "failure"] { XCTAssertGreaterThan(outcomes[outcome] ?? 0, 100, outcome) }
    }

    /// Connection values of pieces beyond ASCII (KELVIN SIGN, U+0130, a combining mark, a
    /// prepended mark, U+037E, which is canonically ";") around the two options and commas.
    private static func drawnConnectionValues(count: Int) -> [[UInt8]] {
        let pieces = ["close", "Close", "keep-alive", "KEEP-ALIVE", "\u{212A}eep-alive", "\u{212A}EEP-ALIVE", ",", ", ", "\t", " ",
                      "\u{130}", "\u{301}", "\u{600}", "\u{37E}", "\u{FFFD}", "cl\u{F6}se", "clo", "se", "keep", "-alive", "\u{EC}x"]
        var random = SeededRandom(seed: 42)
        return (0..<count).map { _ in
            Array((0..<(1 + Int(random.next() % 6))).map { _ in pieces[Int(random.next() % UInt64(pieces.count))] }.joined().utf8)
        }
    }

    /// The heads a client sends in `bytes` (each up to its blank line, without it).
    private static func heads(in bytes: [UInt8]) -> [[UInt8]] {
        var heads: [[UInt8]] = []
        var start = 0
        let end = Array("\r\n\r\n".utf8)
        var index = 0
        while index + 4 <= bytes.count {
            if bytes[index] == 13, Array(bytes[index..<(index + 4)]) == end {
                heads.append(Array(bytes[start..<index]))
                index += 4
                start = index
            } else {
                index += 1
            }
        }
        return heads
    }

    /// "differs", or what both readings gave: "failure", "close" or "keep-alive".
    private static func compare(_ head: [UInt8]) -> String {
        let parsed = head.withUnsafeBufferPointer { RequestHead.parse($0, maxHeaderListBytes: 2 << 10) }
        let plain = PlainRequestHead.parse(head, maxHeaderListBytes: 2 << 10)
        switch (parsed, plain) {
        case (.failure(let status, let reason), .failure(let plainStatus, let plainReason)):
            return status == plainStatus && reason == plainReason ? "failure" : "differs"
        case (.success(let head), .success(let plainHead)):
            let same = head.method == plainHead.method && head.target == plainHead.target && head.minorVersion == plainHead.minorVersion
                && head.headers == plainHead.headers && head.contentLength == plainHead.contentLength && head.chunked == plainHead.chunked
                && head.expectsContinue == plainHead.expectsContinue && head.keepAlive == plainHead.keepAlive
            return same ? (head.keepAlive ? "keep-alive" : "close") : "differs"
        default:
            return "differs"
        }
    }
}

/// The reading `RequestHead.parse` replaced, step by step on bytes and Characters: the
/// reference of RequestHeadParseTests.
private enum PlainRequestHead {
    static func parse(_ bytes: [UInt8], maxHeaderListBytes: Int) -> RequestHead.Result {
        var lines = bytes.split(separator: 10, omittingEmptySubsequences: false).map { $0.last == 13 ? $0.dropLast() : $0 }
        let requestLine = lines.removeFirst().split(separator: 32, omittingEmptySubsequences: false)
        guard requestLine.count == 3, !requestLine[0].isEmpty, !requestLine[1].isEmpty else {
            return .failure(status: 400, reason: "malformed request line (expected: METHOD target HTTP/1.1)")
        }
        let tchar = Set("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ".utf8)
        guard requestLine[0].allSatisfy(tchar.contains), requestLine[1].allSatisfy({ $0 > 32 && $0 < 127 }) else {
            return .failure(status: 400, reason: "invalid character in the request method or target")
        }
        let version = String(decoding: requestLine[2], as: UTF8.self)
        guard version == "HTTP/1.1" || version == "HTTP/1.0" else {
            return .failure(status: version.hasPrefix("HTTP/") ? 505 : 400, reason: "unsupported version '\(version)'")
        }
        let minor = version == "HTTP/1.1" ? 1 : 0
        var head = RequestHead(method: String(decoding: requestLine[0], as: UTF8.self), target: String(decoding: requestLine[1], as: UTF8.self),
                               minorVersion: minor, headers: HTTPHeaders())
        head.keepAlive = minor >= 1
        var listBytes = 0
        var contentLengths: Set<String> = []
        var codings: [String] = []
        for line in lines {
            guard let colon = line.firstIndex(of: 58), colon > line.startIndex else { return .failure(status: 400, reason: "malformed header line") }
            let nameBytes = line[..<colon]
            if nameBytes.contains(32) || nameBytes.contains(9) {
                return .failure(status: 400, reason: "whitespace in header name or folded header line")
            }
            guard nameBytes.allSatisfy(tchar.contains) else { return .failure(status: 400, reason: "invalid character in a header name") }
            let name = String(decoding: nameBytes, as: UTF8.self)
            var valueBytes = line[(colon + 1)...]
            while let first = valueBytes.first, first == 32 || first == 9 { valueBytes = valueBytes.dropFirst() }
            while let last = valueBytes.last, last == 32 || last == 9 { valueBytes = valueBytes.dropLast() }
            if valueBytes.contains(where: { ($0 < 32 && $0 != 9) || $0 == 127 }) {
                return .failure(status: 400, reason: "control character in header '\(name)'")
            }
            let value = String(decoding: valueBytes, as: UTF8.self)
            listBytes += name.utf8.count + value.utf8.count + 32
            if listBytes > maxHeaderListBytes {
                return .failure(status: 431, reason: "request header fields exceed \(maxHeaderListBytes) bytes")
            }
            switch name.lowercased() {
            case "content-length": contentLengths.insert(value)
            case "transfer-encoding": codings.append(value.lowercased())
            case "expect": head.expectsContinue = value.lowercased() == "100-continue"
            case "connection":
                let options = value.lowercased().split(separator: ",").map { trimmed($0) }
                if options.contains("close") { head.keepAlive = false }
                if options.contains("keep-alive") && minor == 0 { head.keepAlive = true }
            default: break
            }
            head.headers.add(name, value)
        }
        if !codings.isEmpty {
            let coding = codings.joined(separator: ",")
            guard coding.split(separator: ",").last.map(trimmed) == "chunked", contentLengths.isEmpty else {
                return .failure(status: 400, reason: "unsupported transfer-encoding '\(coding)'")
            }
            head.chunked = true
        } else if let only = contentLengths.first {
            guard contentLengths.count == 1, !only.isEmpty, only.utf8.count <= 18, only.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }),
                  let length = Int(only) else { return .failure(status: 400, reason: "invalid content-length") }
            head.contentLength = length
        }
        return .success(head)
    }

    /// Without the space and tab Characters at either end.
    private static func trimmed(_ text: Substring) -> String {
        var text = text
        while let first = text.first, first == " " || first == "\t" { text = text.dropFirst() }
        while let last = text.last, last == " " || last == "\t" { text = text.dropLast() }
        return String(text)
    }
}

@testable import PushMetrics
import PushCore
import XCTest

/// The collector parses bodies keeping only the members its checks read (a CDP event's
/// `context` is validated, not built). Every body — the SDKs' own, a pipeline batch with
/// context, and thousands of damaged variants of them — must get exactly the same outcome
/// (the same metrics, or the same rejection with the same pointer and reason) as with the
/// whole document built.
final class MetricRequestParserPruningTests: XCTestCase {
    private static let context = #"{"app":{"name":"Demo","version":"2.4.1","build":"241","namespace":"io.pushlab.demo"},"device":{"manufacturer":"Apple","model":"iPhone15,2","type":"ios","id":"5B2E1C0A-7F3D"},"library":{"name":"customerio-ios","version":"4.7.5"},"os":{"name":"iOS","version":"18.1"},"screen":{"width":393,"height":852},"network":{"wifi":true,"cellular":false},"locale":"en-US","timezone":"Europe/Berlin","list":[1,-2.5e3,null,"x\u00e9\n",{"a":[]}]}"#

    static let bodies: [(CIOMetricRoute, String)] = [
        (.track, #"{"anonymousId":"RPILAgUBcRhIBqSfeiIwdIYJKxTY","event":"Report Delivery Event","properties":{"recipient":"dtok-9f8e","metric":"delivered","deliveryId":"RPILAgUBcRhIBqSfeiIwdIYJKxTY"}}"#),
        (.track, #"{"userId":"u1","event":"Report Delivery Event","timestamp":"2026-04-02T10:46:08.123Z","context":\#(context),"properties":{"recipient":"","metric":"opened","deliveryId":"d-1","extra":{"k":[true]}}}"#),
        (.batch, #"{"batch":[{"type":"track","event":"Application Opened","properties":{"from_background":true},"anonymousId":"a","context":\#(context),"integrations":{}},{"type":"track","event":"Report Delivery Event","properties":{"metric":"opened","deliveryId":"d-2","recipient":"t"},"anonymousId":"a","userId":"u","timestamp":"2026-04-02T10:46:08.123Z","messageId":"m","context":\#(context)},{"type":"screen","name":"Order","properties":{"id":"A"},"anonymousId":"a","context":\#(context)}],"sentAt":"2026-04-02T10:46:09.001Z","writeKey":"k1"}"#),
        (.batch, #"{"batch":[{"type":"identify","userId":"u"},{"type":"track","event":"Report Delivery Event","properties":{"metric":"delivered","deliveryId":"d-3","recipient":"t"},"userId":"u","timestamp":"2026-04-02T10:46:08Z"}],"writeKey":"k1","context":{"event":1}}"#),
        (.legacyEvents, #"{"delivery_id":"d-4","device_id":"tok","event":"delivered","timestamp":1775126768,"context":{"delivery_id":[]}}"#),
    ]

    private func outcome(_ route: CIOMetricRoute, _ body: [UInt8], pruned: Bool) -> Result<ParsedMetricRequest, MetricRejection> {
        do throws(MetricRejection) {
            return .success(try MetricRequestParser.parse(route: route, body: body, pruned: pruned))
        } catch {
            return .failure(error)
        }
    }

    private func assertSame(_ route: CIOMetricRoute, _ body: [UInt8], _ what: String, accepted: inout Int, refused: inout Int) {
        let pruned = outcome(route, body, pruned: true), whole = outcome(route, body, pruned: false)
        XCTAssertEqual(pruned, whole, "\(what): \(String(decoding: body, as: UTF8.self))")
        if case .success = whole { accepted += 1 } else { refused += 1 }
    }

    func testTheSDKBodiesGiveTheSameMetrics() throws {
        for (route, body) in Self.bodies {
            let parsed = try MetricRequestParser.parse(route: route, body: Array(body.utf8))
            XCTAssertEqual(parsed, try MetricRequestParser.parse(route: route, body: Array(body.utf8), pruned: false))
            XCTAssertEqual(parsed.metrics.count, 1, body)
        }
    }

    /// Every single-byte deletion and a set of single-byte replacements at every position: the
    /// damaged bodies include malformed JSON inside skipped members, wrong types in read ones,
    /// keys renamed into or out of the read set, and truncations.
    func testDamagedBodiesGetTheSameOutcome() {
        let replacements = Array(#"{}[]",:1 tn\"#.utf8) + [0x00, 0xC3]
        var accepted = 0, refused = 0
        for (route, text) in Self.bodies {
            let body = Array(text.utf8)
            for i in body.indices {
                var deleted = body
                deleted.remove(at: i)
                assertSame(route, deleted, "without byte \(i)", accepted: &accepted, refused: &refused)
                for r in replacements where r != body[i] {
                    var changed = body
                    changed[i] = r
                    assertSame(route, changed, "byte \(i) replaced", accepted: &accepted, refused: &refused)
                }
            }
        }
        // Both kinds occur, so the comparison covers accepted and refused bodies alike.
        XCTAssertGreaterThan(accepted, 100)
        XCTAssertGreaterThan(refused, 1000)
    }

    /// A read member given another type, null, or twice (the last one counts), at each place it is read.
    func testReadMembersOfEveryTypeGetTheSameOutcome() {
        let values = [#"null"#, #"1"#, #"true"#, #"[]"#, #"{}"#, #""""#, #""x y""#, #"{"metric":"opened"}"#]
        var accepted = 0, refused = 0
        for (route, text) in Self.bodies {
            for key in IngestJSON.readMembers.all {
                let needle = "\"\(key)\":"
                var searchStart = text.startIndex
                while let r = text.range(of: needle, range: searchStart..<text.endIndex) {
                    for v in values {
                        // The member's value replaced by `v`, and the member repeated with `v` after it.
                        let end = Self.valueEnd(text, from: r.upperBound)
                        let replaced = text[..<r.upperBound] + v + text[end...]
                        assertSame(route, Array(replaced.utf8), "\(key) = \(v)", accepted: &accepted, refused: &refused)
                        let repeated = text[..<end] + ",\(needle)\(v)" + text[end...]
                        assertSame(route, Array(repeated.utf8), "\(key) repeated as \(v)", accepted: &accepted, refused: &refused)
                    }
                    searchStart = r.upperBound
                }
            }
        }
        XCTAssertGreaterThan(accepted, 10)
        XCTAssertGreaterThan(refused, 100)
    }

    /// Where the JSON value starting at `start` ends (the bodies above have no brackets in strings).
    private static func valueEnd(_ text: String, from start: String.Index) -> String.Index {
        var depth = 0, inString = false, i = start
        while i < text.endIndex {
            let c = text[i]
            if inString {
                if c == "\\" { i = text.index(after: i) } else if c == "\"" { inString = false; if depth == 0 { return text.index(after: i) } }
            } else if c == "\"" {
                inString = true
            } else if c == "{" || c == "[" {
                depth += 1
            } else if c == "}" || c == "]" {
                if depth == 0 { return i }
                depth -= 1
                if depth == 0 { return text.index(after: i) }
            } else if c == "," && depth == 0 {
                return i
            }
            i = text.index(after: i)
        }
        return i
    }
}

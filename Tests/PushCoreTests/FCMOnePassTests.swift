import Foundation
import TestSupport
import XCTest
@testable import PushCore

/// `FCMSendRequest.onePass` (the gateway's one-pass read of a send request) against the full
/// path it stands in for: JSON parse, the validator with `scope: .serviceEnforced` (errors only,
/// as the gateway reads it) and `FCMSendRequest(json:)`. Whatever the one pass accepts, the full
/// path must accept and type identically; what it leaves (nil) the full path decides.
final class FCMOnePassTests: XCTestCase {
    /// The gateway's full path: nil when the body does not parse or has an error finding.
    private func fullPath(_ bytes: [UInt8]) -> FCMSendRequest? {
        guard let document = try? JSONDocument.parse(bytes) else { return nil }
        var options = ValidationOptions(scope: .serviceEnforced)
        options.receivedByteCount = bytes.count
        let report = Validator(options: options).validate(document, as: .fcm)
        guard !report.findings.contains(where: { $0.severity == .error }) else { return nil }
        return FCMSendRequest(json: document.root)
    }

    /// The one pass never accepts what the full path refuses, and types what it accepts the same.
    private func assertAgrees(_ bytes: [UInt8], _ label: @autoclosure () -> String, file: StaticString = #filePath, line: UInt = #line) -> Bool {
        guard let fast = FCMSendRequest.onePass(bytes) else { return false }
        let full = fullPath(bytes)
        XCTAssertNotNil(full, "one pass accepted what the full path refuses: \(label())", file: file, line: line)
        XCTAssertEqual(fast, full, label(), file: file, line: line)
        XCTAssertEqual(fast.message.data.map(\.key), full?.message.data.map(\.key), label(), file: file, line: line)
        return true
    }

    private static let token = "bench000001:APA91bXy9_-QXy9_-QXy9_-QXy9_-QXy9_-QXy9_-QXy9_-QXy9_-QXy9_-QXy9_-QXy9_-QXy9_-QXy9_-QXy9_-QXy9_-QXy9_-QXy9_-QXy9_-QXy9_-QXy9_-QXy9_-QXy9_-QXy9_-Q"
    /// benchmarks/gateway.sh's body.
    private static let benchmarkBody = #"{"message":{"token":"\#(token)","notification":{"title":"Benchmark","body":"Hello from the benchmark"},"data":{"k":"v"}}}"#

    /// Bodies inside the plain subset, each of which the one pass must take.
    private static let plainBodies = [
        benchmarkBody,
        #"{"validate_only":true,"message":{"token":"\#(token)","data":{"a":"1","b":"","CIO-Delivery-ID":"d1"}}}"#,
        #" {"message" : {"data": {}, "notification": {}, "fid": "dQw4w9WgXcQpZ7k3mB2x_A"}, "validate_only" : false}"# + "\n\t\r ",
        #"{"message":{"topic":"/topics/news.breaking","notification":{"body":"Grüße 🎉","title":"Ünïcode","image":"https://x.test/a.png"}}}"#,
        #"{"message":{"condition":"'a' in topics && ('b' in topics || 'c' in topics)","notification":{"image":"not a url"}}}"#,
        #"{"message":{"token":"\#(token)","notification":{"title":"/ slash ~ tilde"}}}"#,
    ]

    func testTakesTheBenchmarkBodyAndThePlainBodiesAsTheFullPathDoes() {
        for body in Self.plainBodies {
            let bytes = Array(body.utf8)
            XCTAssertNotNil(fullPath(bytes), body)
            XCTAssertTrue(assertAgrees(bytes, body), "one pass left a plain body to the full path: \(body)")
        }
        XCTAssertEqual(FCMSendRequest.onePass(Array(Self.benchmarkBody.utf8))?.message.data.first?.value, "v")
    }

    /// Bodies the full path refuses, one per check the one pass makes itself: it must leave each.
    func testLeavesEveryBodyWithAFindingToTheFullPath() {
        let t = Self.token
        let refused = [
            #"{"message":{"token":"\#(t)","data":{"from":"x"}}}"#,
            #"{"message":{"token":"\#(t)","data":{"GCM":"x"}}}"#,
            #"{"message":{"token":"\#(t)","data":{"Google.c.a":"x"}}}"#,
            #"{"message":{"token":"\#(t)","data":{"n":1}}}"#,
            #"{"message":{"token":"\#(t)","notification":{"subtitle":"x"}}}"#,
            #"{"message":{"token":"\#(String(repeating: "ab", count: 32))"}}"#,
            #"{"message":{"token":"short"}}"#,
            #"{"message":{"token":""}}"#,
            #"{"message":{"fid":"aQw4w9WgXcQpZ7k3mB2x_A"}}"#,
            #"{"message":{"topic":"bad topic"}}"#,
            #"{"message":{"condition":"no topics here"}}"#,
            #"{"message":{"token":"\#(t)","topic":"news"}}"#,
            #"{"message":{"notification":{"title":"no target"}}}"#,
            #"{"message":{"token":"\#(t)","tokn":"x"}}"#,
            #"{"validate_only":"yes","message":{"token":"\#(t)"}}"#,
            #"{"message":{"token":"\#(t)","data":{"k":"\#(String(repeating: "x", count: 4090))"}}}"#,
            #"{"message":{"topic":"news","data":{"k":"\#(String(repeating: "x", count: 2040))"}}}"#,
            #"{"token":"\#(t)"}"#,
            #"{"message":"\#(t)"}"#,
            #"["message"]"#,
            "",
        ]
        for body in refused {
            let bytes = Array(body.utf8)
            XCTAssertNil(fullPath(bytes), "the full path accepts \(body)")
            XCTAssertNil(FCMSendRequest.onePass(bytes), "one pass accepted \(body)")
        }
        // Findings the gateway does not answer (an SDK rule, a lint, a duplicate key): the full path
        // accepts these, the one pass leaves them to it rather than judge them.
        let left = [
            #"{"message":{"token":"\#(t)","data":{"CIO":"x"}}}"#,
            #"{"message":{"token":"\#(t)","notification":{"image":"http://x.test/a.png"}}}"#,
            #"{"message":{"token":"\#(t)","data":{"k":"1","k":"2"}}}"#,
        ]
        for body in left {
            let bytes = Array(body.utf8)
            XCTAssertNotNil(fullPath(bytes), body)
            XCTAssertNil(FCMSendRequest.onePass(bytes), body)
        }
    }

    /// The size limits to the byte: data values growing across 4096 (2048 for a topic).
    func testAgreesAcrossTheSizeLimits() {
        var accepted = 0
        for (target, limit) in [(#""token":"\#(Self.token)""#, FCMTarget.contentLimit), (#""topic":"news""#, FCMTarget.topicContentLimit)] {
            // {"notification":{"title":"T"},"data":{"k":"…","e":"é"}} is 55 bytes of content around the value.
            for n in (limit - 70)...(limit - 40) {
                let body = #"{"message":{\#(target),"notification":{"title":"T"},"data":{"k":"\#(String(repeating: "x", count: n))","e":"é"}}}"#
                let bytes = Array(body.utf8)
                let full = fullPath(bytes)
                XCTAssertEqual(FCMSendRequest.onePass(bytes), full, "\(limit): \(n)")
                if full != nil { accepted += 1 }
            }
        }
        XCTAssertGreaterThan(accepted, 10)
        XCTAssertLessThan(accepted, 60)
    }

    func testAgreesWithTheFullPathOnThePayloadCorpus() throws {
        var files: [String] = []
        for dir in ["payloads/fcm", "payloads/invalid", "payloads/live-activities", "Tests/Corpus/payload"] {
            let names = try FileManager.default.contentsOfDirectory(atPath: Fixtures.path(dir)).filter { $0.hasSuffix(".json") }
            files += names.sorted().map { "\(dir)/\($0)" }
        }
        XCTAssertGreaterThan(files.count, 40)
        var taken = 0
        for file in files where assertAgrees(try PayloadSamples.bytes(file), file) { taken += 1 }
        XCTAssertGreaterThanOrEqual(taken, 1, "basic-token.json is a plain body")
    }

    /// `plainString` passes eight bytes at a time: each byte that ends or leaves a plain string
    /// (quote, backslash, control bytes, DEL, non-ASCII) at every offset of titles of 1–19 bytes,
    /// against the full path; where the byte keeps the string plain, the one pass must take it.
    func testAgreesWhereverASpecialByteSitsInAString() {
        let specials: [[UInt8]] = [[0x22], [0x5C], [0x00], [0x1F], [0x7F], [0xFF], [0x80], [0xC3, 0xA9], [0x7E], [0x20]]
        let plain: Set<[UInt8]> = [[0xC3, 0xA9], [0x7E], [0x20]]
        for length in 1...19 {
            for offset in 0..<length {
                for special in specials {
                    var title = [UInt8](repeating: UInt8(ascii: "x"), count: length)
                    title.replaceSubrange(offset..<offset + 1, with: special)
                    let body = Array(#"{"message":{"token":"\#(Self.token)","notification":{"title":""#.utf8) + title + Array(#""}}}"#.utf8)
                    let label = "title bytes \(title)"
                    let taken = assertAgrees(body, label)
                    if plain.contains(special) { XCTAssertTrue(taken, "one pass left a plain title to the full path: \(label)") }
                }
            }
        }
    }

    /// Seeded byte edits of plain bodies: structure, quotes, escapes, control bytes, broken UTF-8,
    /// letters that turn keys into reserved or unknown ones.
    func testAgreesWithTheFullPathOnMutatedBodies() throws {
        let seeds = try Self.plainBodies.map { Array($0.utf8) } + [PayloadSamples.bytes("payloads/fcm/basic-token.json")]
        let alphabet = Array(#"{}[]":,\ u0123456789-+.eEtfnrlagdCIOom"#.utf8) + [0x00, 0x1F, 0x7F, 0xC3, 0xA9, 0xED, 0xA0, 0xFF]
        var random = SeededRandom(seed: 40)
        var taken = 0
        for round in 0..<4000 {
            var bytes = seeds[round % seeds.count]
            for _ in 0..<(1 + Int(random.next() % 2)) { random.edit(&bytes, from: alphabet) }
            if assertAgrees(bytes, String(decoding: bytes, as: UTF8.self)) { taken += 1 }
        }
        // Both outcomes were exercised: edits inside strings keep a body plain.
        XCTAssertGreaterThan(taken, 200)
        XCTAssertLessThan(taken, 3800)
    }
}

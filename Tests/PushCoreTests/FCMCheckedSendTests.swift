import Foundation
import TestSupport
import XCTest
@testable import PushCore

/// `FCMCheckedSend(onePass:)` (the gateway's check of a send request without typing it) against
/// `FCMSendRequest.onePass`, which `FCMOnePassTests` holds against the full path: the same bodies
/// accepted, with the same target and validate_only. The gateway types a checked body with
/// `onePass` when a device or sink reads its content, so this must hold for every body.
final class FCMCheckedSendTests: XCTestCase {
    private static let token = "bench000001:APA91bXy9_-QXy9_-QXy9_-QXy9_-QXy9_-QXy9_-QXy9_-QXy9_-QXy9_-QXy9_-QXy9_-QXy9_-QXy9_-QXy9_-QXy9_-QXy9_-QXy9_-QXy9_-QXy9_-QXy9_-QXy9_-QXy9_-QXy9_-Q"

    private func assertAgrees(_ bytes: [UInt8], _ label: @autoclosure () -> String, file: StaticString = #filePath, line: UInt = #line) -> Bool {
        let typed = FCMSendRequest.onePass(bytes), checked = FCMCheckedSend(onePass: bytes)
        XCTAssertEqual(checked == nil, typed == nil, label(), file: file, line: line)
        XCTAssertEqual(checked?.target, typed?.message.target, label(), file: file, line: line)
        XCTAssertEqual(checked?.validateOnly, typed?.validateOnly, label(), file: file, line: line)
        return checked != nil
    }

    /// Keys the check compares by their bytes when both are ASCII and as strings otherwise:
    /// canonically equal keys (a precomposed and a decomposed é, the Kelvin sign and K) repeat.
    func testRepeatedDataKeysAreFoundAsTheTypedPassFindsThem() {
        let t = Self.token
        let repeated = [#""k":"1","k":"2""#, #""é":"1","e\#u{301}":"2""#, #""\#u{212A}":"1","K":"2""#, #""K":"1","\#u{212A}":"2""#,
                        #""a":"1","b":"2","a":"3""#]
        for data in repeated {
            let bytes = Array(#"{"message":{"token":"\#(t)","data":{\#(data)}}}"#.utf8)
            XCTAssertFalse(assertAgrees(bytes, data), "a repeated key is left to the full path: \(data)")
        }
        let distinct = [#""k":"1","K":"2""#, #""é":"1","e":"2""#, #""ab":"1","a":"2""#, #""a":"1","b":"2","c":"é""#]
        for data in distinct {
            let bytes = Array(#"{"message":{"token":"\#(t)","data":{\#(data)}}}"#.utf8)
            XCTAssertTrue(assertAgrees(bytes, data), data)
        }
        let sixtyFour = (0..<64).map { #""k\#($0)":"v""# }.joined(separator: ",")
        XCTAssertTrue(assertAgrees(Array(#"{"message":{"token":"\#(t)","data":{\#(sixtyFour)}}}"#.utf8), "64 keys"))
        XCTAssertFalse(assertAgrees(Array(#"{"message":{"token":"\#(t)","data":{\#(sixtyFour),"k64":"v"}}}"#.utf8), "65 keys"))
    }

    /// Seeded byte edits of plain bodies (broken UTF-8 in values the check does not type among
    /// them) and the payload corpus.
    func testAgreesWithTheTypedPassOnMutatedBodiesAndTheCorpus() throws {
        let t = Self.token
        let seeds = [
            #"{"message":{"token":"\#(t)","notification":{"title":"Benchmark","body":"Hello from the benchmark"},"data":{"k":"v"}}}"#,
            #"{"validate_only":true,"message":{"token":"\#(t)","data":{"a":"1","b":"","CIO-Delivery-ID":"d1","é":"ü"}}}"#,
            #"{"message":{"topic":"/topics/news.breaking","notification":{"body":"Grüße 🎉","title":"Ünïcode","image":"https://x.test/a.png"}}}"#,
            #" {"message" : {"data": {}, "notification": {}, "fid": "dQw4w9WgXcQpZ7k3mB2x_A"}, "validate_only" : false}"#,
        ].map { Array($0.utf8) }
        let alphabet = Array(#"{}[]":,\ u0123456789-+.eEtfnrlagdCIOomkK"#.utf8) + [0x00, 0x1F, 0x7F, 0xC3, 0xA9, 0xED, 0xA0, 0xFF, 0x80]
        var random = SeededRandom(seed: 46)
        let taken = random.editedCopies(of: seeds, count: 4000, from: alphabet).filter { assertAgrees($0, String(decoding: $0, as: UTF8.self)) }.count
        XCTAssertGreaterThan(taken, 200)
        XCTAssertLessThan(taken, 3800)
        for dir in ["payloads/fcm", "payloads/invalid", "Tests/Corpus/payload"] {
            for name in try FileManager.default.contentsOfDirectory(atPath: Fixtures.path(dir)) where name.hasSuffix(".json") {
                _ = assertAgrees(try PayloadSamples.bytes("\(dir)/\(name)"), name)
            }
        }
    }
}

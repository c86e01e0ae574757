import XCTest
@testable import PushGateway

/// The 200 answer with the message name written into it once (`FCMSendRoute.answer(project:micros:random:)`),
/// from which the record takes the name (`FCMSendRoute.name(in:)`).
final class FCMAnswerNameTests: XCTestCase {
    func testTheAnswerHoldsTheMessageNameAndNameInReadsItBack() {
        let cases: [(String, Int64, UInt64)] = [("pushlab-dev", 1_767_225_600_123_456, 0xabc), ("pushlab-dev", 0, 0), ("", 12, 0xa),
                                                ("é-π", -5, UInt64.max), ("p", Int64.min, 16), (String(repeating: "x", count: 300), Int64.max, 0xF)]
        for (project, micros, random) in cases {
            let name = FCMSendRoute.messageName(project: project, micros: micros, random: random)
            let answer = FCMSendRoute.answer(project: project, micros: micros, random: random)
            XCTAssertEqual(answer, FCMSendRoute.answer(name: name), name)
            XCTAssertEqual(String(decoding: FCMSendRoute.name(in: answer), as: UTF8.self), name)
        }
        XCTAssertEqual(Array(FCMSendRoute.name(in: FCMSendRoute.answer(name: ""))), [])
    }
}

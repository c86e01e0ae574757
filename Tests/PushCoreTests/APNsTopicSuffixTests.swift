import XCTest
@testable import PushCore

/// The topic suffix checks compare UTF-8 bytes when the topic is ASCII and fall back to
/// `String.hasSuffix` otherwise; both must agree with `hasSuffix` everywhere.
final class APNsTopicSuffixTests: XCTestCase {
    func testSuffixChecksAgreeWithHasSuffix() {
        let topics = ["io.app", "io.app.voip", "io.app.voip-ptt", "io.app.push-type.liveactivity", "voip", ".voip", "",
                      "io.app.VOIP", "io.äpp.voip", "io.app.voip\u{301}", "io.app\u{301}.voip", "io.app.complication"]
        for topic in topics {
            for type in APNsPushType.allCases where !type.topicSuffix.isEmpty {
                XCTAssertEqual(APNsPushType.hasSuffix(topic, type.topicSuffix), topic.hasSuffix(type.topicSuffix), "\(topic) \(type)")
            }
            XCTAssertEqual(APNsPushType.suffix(of: topic), APNsPushType.topicSuffixes.first { topic.hasSuffix($0) }, topic)
        }
        // A combining mark after the suffix makes the last character another one: not a VoIP topic.
        XCTAssertFalse(APNsPushType.voip.fits(topic: "io.app.voip\u{301}"))
        XCTAssertTrue(APNsPushType.alert.fits(topic: "io.app.voip\u{301}"))
        XCTAssertTrue(APNsPushType.voip.fits(topic: "io.app.voip"))
        XCTAssertEqual(APNsPushType.voip.bundleID(fromTopic: "io.app.voip"), "io.app")
        XCTAssertEqual(APNsPushType.voip.bundleID(fromTopic: "io.app.voip\u{301}"), "io.app.voip\u{301}")
    }
}

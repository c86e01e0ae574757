import XCTest
@testable import PushCore

/// One definition (issue 15): the FCM topic-name and size facts the validator reports are the
/// ones the sender checks a target with (PushCore `FCMTarget`).
final class FCMTargetRulesTests: XCTestCase {
    func testTheValidatorAndTheSendersTargetCheckAgreeOnTopicNames() {
        for topic in ["news", "/topics/news", "a-b_c.d~e%f", "", "/topics/", "news!", "ünï", "two words"] {
            let message: JSONValue = ["message": ["topic": .string(topic), "notification": ["title": "t"]]]
            let fired = !Validator().validate(message, as: .fcm).findings(for: RuleCatalog.fcmTopicFormat.id).isEmpty
            XCTAssertEqual(fired && !topic.isEmpty, !FCMTarget.isValidTopic(topic) && !topic.isEmpty, "validator on \(topic)")
            XCTAssertEqual(FCMTarget.topic(topic).problem != nil, !FCMTarget.isValidTopic(topic), "sender on \(topic)")
        }
    }

    func testTheContentLimitIsTheTargetsLimit() {
        XCTAssertEqual(FCMTarget.topic("news").contentLimit, 2048)
        XCTAssertEqual(FCMTarget.token("t").contentLimit, 4096)
        XCTAssertEqual(FCMTarget.condition("'a' in topics").contentLimit, 4096)
        let body = String(repeating: "x", count: 3000)
        for (target, key) in [(FCMTarget.topic("news"), "topic"), (.token(String(repeating: "a", count: 152)), "token")] {
            let message: JSONValue = ["message": [key: .string(target.value), "data": ["k": .string(body)]]]
            let report = Validator().validate(message, as: .fcm)
            XCTAssertEqual(report.byteLimit, target.contentLimit, key)
            XCTAssertEqual(!report.findings(for: RuleCatalog.fcmSizeMax.id).isEmpty, (report.byteCount ?? 0) > target.contentLimit, key)
        }
    }
}

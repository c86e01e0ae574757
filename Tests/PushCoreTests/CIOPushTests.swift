import XCTest
@testable import PushCore

/// Is it a Customer.io push? (docs/specs/device-side.md §1), and the `aps` fields the device renders.
final class CIOPushTests: XCTestCase {
    func testBothStringDeliveryKeysMakeACustomerIOPushEvenWhenEmpty() throws {
        let push = try XCTUnwrap(CIOPush(payload: ["CIO-Delivery-ID": "", "CIO-Delivery-Token": ""]))
        XCTAssertEqual(push.deliveryID, "")
        XCTAssertNil(push.image)
    }

    func testMissingOrNonStringDeliveryKeysAreNotACustomerIOPush() {
        XCTAssertNil(CIOPush(payload: ["CIO-Delivery-ID": "abc"]))
        XCTAssertNil(CIOPush(payload: ["CIO-Delivery-ID": "abc", "CIO-Delivery-Token": 123]))
        XCTAssertNil(CIOPush(payload: ["aps": ["alert": "hi"]]))
        XCTAssertNil(CIOPush(payload: "not an object"))
    }

    func testRichFieldsAreReadFromCIOPush() throws {
        let doc = try JSONParser().parse("""
        {"aps":{"mutable-content":1,"alert":{"title":"T","body":"B"}},
         "CIO":{"push":{"image":"https://x.test/a.png","link":"myapp://item/1"}},
         "CIO-Delivery-ID":"dlv-1","CIO-Delivery-Token":"tok-1"}
        """)
        let push = try XCTUnwrap(CIOPush(payload: doc.root))
        XCTAssertEqual(push, CIOPush(deliveryID: "dlv-1", deliveryToken: "tok-1", image: "https://x.test/a.png", link: "myapp://item/1"))
        XCTAssertEqual(push.imageURL?.host, "x.test")
        XCTAssertEqual(push.linkURL?.scheme, "myapp")
    }

    func testNonStringRichFieldsAreIgnored() throws {
        let push = try XCTUnwrap(CIOPush(payload: ["CIO": ["push": ["image": 1, "link": ["x"]]], "CIO-Delivery-ID": "a", "CIO-Delivery-Token": "b"]))
        XCTAssertNil(push.image)
        XCTAssertNil(push.link)
    }

    func testAPSReadsAlertSoundAndFlags() throws {
        let doc = try JSONParser().parse("""
        {"aps":{"alert":{"title":"T","subtitle":"S","body":"B"},"sound":{"name":"ping.caf","critical":1,"volume":0.5},
         "badge":3,"mutable-content":1,"category":"c","thread-id":"t","interruption-level":"time-sensitive",
         "relevance-score":0.25,"target-content-id":"x"}}
        """)
        let aps = try XCTUnwrap(APS(payload: doc.root))
        XCTAssertEqual(aps.alert, APS.Alert(title: "T", subtitle: "S", body: "B"))
        XCTAssertEqual(aps.sound, APS.Sound(name: "ping.caf", critical: true, volume: 0.5))
        XCTAssertEqual(aps.badge, 3)
        XCTAssertTrue(aps.mutableContent)
        XCTAssertFalse(aps.contentAvailable)
        XCTAssertEqual(aps.category, "c")
        XCTAssertEqual(aps.threadID, "t")
        XCTAssertEqual(aps.interruptionLevel, .timeSensitive)
        XCTAssertEqual(aps.relevanceScore, 0.25)
        XCTAssertTrue(aps.runsServiceExtension)
    }

    func testStringAlertIsTheBody() throws {
        let aps = try XCTUnwrap(APS(payload: ["aps": ["alert": "Hello", "sound": "default"]]))
        XCTAssertEqual(aps.alert?.body, "Hello")
        XCTAssertEqual(aps.sound?.name, "default")
    }

    func testMutableContentMustBeTheNumberOne() throws {
        XCTAssertFalse(APS(payload: ["aps": ["alert": "x", "mutable-content": true]])!.mutableContent)
        XCTAssertFalse(APS(payload: ["aps": ["alert": "x", "mutable-content": "1"]])!.mutableContent)
        XCTAssertFalse(APS(payload: ["aps": ["alert": "x", "mutable-content": 0]])!.mutableContent)
        XCTAssertTrue(APS(payload: ["aps": ["alert": "x", "mutable-content": 1.0]])!.mutableContent)
    }

    func testNSERequiresAVisibleAlert() throws {
        let silent = try XCTUnwrap(APS(payload: ["aps": ["mutable-content": 1, "content-available": 1]]))
        XCTAssertTrue(silent.contentAvailable)
        XCTAssertFalse(silent.runsServiceExtension)
    }
}

import Foundation
import PushCore
import TestSupport
import XCTest
@testable import PushDevice

/// The Live Activity on the virtual iPhone, one test per rule of docs/specs/apns.md "Per-device
/// Live Activity pushes", on an emulated clock (UNIX seconds passed in, no waiting).
final class LiveActivityHostTests: XCTestCase {
    let t0 = 1_767_225_600
    let profile = LiveActivityProfile(activities: [
        LiveActivitySchema(attributesType: "DeliveryAttributes", attributes: ["orderID": "string"],
                           contentState: ["status": "string", "minutesAway": "int", "cioMetadata": "object?"]),
    ])

    func push(_ json: String) -> LiveActivityPush { LiveActivityPush(bytes: Array(json.utf8))! }

    func start(_ host: LiveActivityHost, stale: Int? = nil) -> LiveActivity {
        let staleKey = stale.map { #","stale-date":\#($0)"# } ?? ""
        let events = host.receive(push(#"{"aps":{"event":"start","timestamp":\#(t0),"attributes-type":"DeliveryAttributes","attributes":{"orderID":"A1"},"content-state":{"status":"placed","minutesAway":30},"input-push-token":1,"alert":{"title":"t","body":"b"}\#(staleKey)}}"#),
                                  target: .pushToStart, at: t0)
        XCTAssertEqual(events.map(\.kind), [.started, .tokenIssued])
        return host.snapshot[0]
    }

    func update(_ host: LiveActivityHost, _ a: LiveActivity, ts: Int, status: String, at: Int, priority: Int = 10, extra: String = "") -> [LiveActivityTimelineEvent] {
        host.receive(push(#"{"aps":{"event":"update","timestamp":\#(ts),"content-state":{"status":"\#(status)","minutesAway":5}\#(extra)}}"#),
                     priority: priority, target: .activityToken(a.pushToken!), at: at)
    }

    func testPushToStartCreatesTheActivityAndIssuesItsUpdateToken() {
        let host = LiveActivityHost(deviceName: "p", bundleID: "io.pushlab.demo", profile: profile)
        let a = start(host)
        XCTAssertEqual(a.attributesType, "DeliveryAttributes")
        XCTAssertEqual(a.pushToken?.count, 64)
        XCTAssertNotEqual(a.pushToken, host.pushToStartToken)
    }

    func testUpdatesOutOfOrderKeepTheNewestAndSaySoForTheOlder() {
        let host = LiveActivityHost(deviceName: "p", bundleID: "b", profile: profile)
        let a = start(host)
        XCTAssertEqual(update(host, a, ts: t0 + 600, status: "new", at: t0 + 610).map(\.kind), [.updated])
        let older = update(host, a, ts: t0 + 300, status: "old", at: t0 + 620)
        XCTAssertEqual(older.map(\.kind), [.dropped])
        XCTAssertTrue(older[0].detail.contains("is older than the shown state's"), older[0].detail)
        XCTAssertEqual(host.snapshot[0].contentState["status"]?.stringValue, "new")
        // The drop stays on the activity, for `activity list`.
        XCTAssertEqual(host.snapshot[0].notApplied, 1)
        XCTAssertEqual(host.snapshot[0].lastNotApplied, older[0])
    }

    /// Apple: an update *older* than the shown state is ignored; one of the same second is not
    /// older (docs/specs/apns.md), so an end sent within the update's second ends the activity.
    func testAnEndWithTheSameTimestampAsTheUpdateIsApplied() {
        let host = LiveActivityHost(deviceName: "p", bundleID: "b", profile: profile)
        let a = start(host)
        XCTAssertEqual(update(host, a, ts: t0 + 600, status: "new", at: t0 + 600).map(\.kind), [.updated])
        let end = host.receive(push(#"{"aps":{"event":"end","timestamp":\#(t0 + 600),"dismissal-date":\#(t0 + 600)}}"#),
                               priority: 10, target: .activityToken(a.pushToken!), at: t0 + 600)
        XCTAssertEqual(end.map(\.kind), [.ended, .dismissed])
        XCTAssertEqual(host.snapshot[0].notApplied, 0)
    }

    /// Apple staff: a timestamp more than 8 hours ahead is dropped.
    func testATimestampMoreThanEightHoursAheadIsDropped() {
        let host = LiveActivityHost(deviceName: "p", bundleID: "b", profile: profile)
        let a = start(host)
        let ahead = update(host, a, ts: t0 + 10 + 8 * 3600 + 1, status: "future", at: t0 + 10)
        XCTAssertEqual(ahead.map(\.kind), [.dropped])
        XCTAssertTrue(ahead[0].detail.contains("8 hours ahead"), ahead[0].detail)
        XCTAssertEqual(update(host, a, ts: t0 + 10 + 8 * 3600, status: "far", at: t0 + 10).map(\.kind), [.updated])
    }

    func testStaleDateTurnsItStaleAndANewerUpdateRevivesIt() {
        let host = LiveActivityHost(deviceName: "p", bundleID: "b", profile: profile)
        let a = start(host, stale: t0 + 900)
        XCTAssertEqual(host.advance(to: t0 + 899).map(\.kind), [])
        XCTAssertEqual(host.advance(to: t0 + 900).map(\.kind), [.stale])
        XCTAssertEqual(host.snapshot[0].phase, .stale)
        _ = update(host, a, ts: t0 + 1000, status: "fresh", at: t0 + 1000, extra: #","stale-date":\#(t0 + 2000)"#)
        XCTAssertEqual(host.snapshot[0].phase, .active)
    }

    func testEndWithDismissalDateRemovesItOnTimeAndWithoutOneWithinFourHours() {
        let host = LiveActivityHost(deviceName: "p", bundleID: "b", profile: profile)
        let a = start(host)
        let end = host.receive(push(#"{"aps":{"event":"end","timestamp":\#(t0 + 60),"dismissal-date":\#(t0 + 360)}}"#),
                               target: .activityToken(a.pushToken!), at: t0 + 60)
        XCTAssertEqual(end.map(\.kind), [.ended])
        XCTAssertEqual(host.advance(to: t0 + 359).map(\.kind), [])
        XCTAssertEqual(host.advance(to: t0 + 360).map(\.kind), [.dismissed])

        let other = LiveActivityHost(deviceName: "q", bundleID: "b", profile: profile, seed: 2)
        let b = start(other)
        _ = other.receive(push(#"{"aps":{"event":"end","timestamp":\#(t0 + 60)}}"#), target: .activityToken(b.pushToken!), at: t0 + 60)
        XCTAssertEqual(other.snapshot[0].dismissalDate, t0 + 60 + LiveActivityLimits.maximumLockScreenSecondsAfterEnd)
        XCTAssertEqual(other.advance(to: t0 + 60 + 4 * 3600).map(\.kind), [.dismissed])
    }

    func testTheSystemEndsAnActivityAfterEightHours() {
        let host = LiveActivityHost(deviceName: "p", bundleID: "b", profile: profile)
        _ = start(host)
        XCTAssertEqual(host.advance(to: t0 + 8 * 3600).map(\.kind), [.ended])
        XCTAssertEqual(host.advance(to: t0 + 12 * 3600).map(\.kind), [.dismissed])
    }

    func testAStartWithoutAttributesStartsNothing() {
        let host = LiveActivityHost(deviceName: "p", bundleID: "b", profile: profile)
        let events = host.receive(push(#"{"aps":{"event":"start","timestamp":\#(t0),"content-state":{"status":"x","minutesAway":1},"alert":{"title":"t","body":"b"}}}"#),
                                  target: .pushToStart, at: t0)
        XCTAssertEqual(events.map(\.kind), [.decodingFailed])
        XCTAssertTrue(host.snapshot.isEmpty)
    }

    func testAContentStateThatDoesNotDecodeIsDroppedLikeOnIOS() {
        let host = LiveActivityHost(deviceName: "p", bundleID: "b", profile: profile)
        let a = start(host)
        let events = host.receive(push(#"{"aps":{"event":"update","timestamp":\#(t0 + 5),"content-state":{"status":"x","minutesAway":"ten"}}}"#),
                                  target: .activityToken(a.pushToken!), at: t0 + 5)
        XCTAssertEqual(events.map(\.kind), [.decodingFailed])
        XCTAssertTrue(events[0].detail.contains("typeMismatch"), events[0].detail)
        let missing = host.receive(push(#"{"aps":{"event":"update","timestamp":\#(t0 + 6),"content-state":{"minutesAway":3}}}"#),
                                   target: .activityToken(a.pushToken!), at: t0 + 6)
        XCTAssertTrue(missing[0].detail.contains("keyNotFound: \"status\""), missing[0].detail)
        XCTAssertEqual(host.snapshot[0].contentState["status"]?.stringValue, "placed")
    }

    func testAnUpdateStampedInTheSecondOfALocalStartIsApplied() {
        let host = LiveActivityHost(deviceName: "p", bundleID: "b")
        host.startLocally(attributesType: "T", attributes: [:], contentState: ["n": 1], at: t0, wantsPushToken: true)
        let events = host.receive(push(#"{"aps":{"event":"update","timestamp":\#(t0),"content-state":{"n":2}}}"#),
                                  target: .activityToken(host.snapshot[0].pushToken!), at: t0)
        XCTAssertEqual(events.map(\.kind), [.updated], "a local start applied no push, so any pushed update is newer")
    }

    func testAContentStateOver4KBIsNotApplied() {
        let host = LiveActivityHost(deviceName: "p", bundleID: "b")
        host.startLocally(attributesType: "T", attributes: [:], contentState: ["n": 1], at: t0, wantsPushToken: true)
        let token = host.snapshot[0].pushToken!
        let big = String(repeating: "x", count: 4100)
        let events = host.receive(push(#"{"aps":{"event":"update","timestamp":\#(t0 + 1),"content-state":{"s":"\#(big)"}}}"#),
                                  target: .activityToken(token), at: t0 + 1)
        XCTAssertEqual(events.map(\.kind), [.tooLarge])
    }

    func testPriorityTenUpdatesBeyondTheBudgetAreThrottledAndPriorityFiveIsNot() {
        let host = LiveActivityHost(deviceName: "p", bundleID: "b", profile: profile, budget: LiveActivityUpdateBudget(capacity: 2, refillSeconds: 600))
        let a = start(host)
        XCTAssertEqual(update(host, a, ts: t0 + 1, status: "1", at: t0 + 1).map(\.kind), [.updated])
        XCTAssertEqual(update(host, a, ts: t0 + 2, status: "2", at: t0 + 2).map(\.kind), [.updated])
        XCTAssertEqual(update(host, a, ts: t0 + 3, status: "3", at: t0 + 3).map(\.kind), [.throttled])
        XCTAssertEqual(update(host, a, ts: t0 + 4, status: "4", at: t0 + 4, priority: 5).map(\.kind), [.updated])
        XCTAssertEqual(update(host, a, ts: t0 + 700, status: "5", at: t0 + 700).map(\.kind), [.updated], "the budget refills")
    }

    func testAnUpdateToThePushToStartTokenIsDropped() {
        let host = LiveActivityHost(deviceName: "p", bundleID: "b", profile: profile)
        _ = start(host)
        let events = host.receive(push(#"{"aps":{"event":"update","timestamp":\#(t0 + 1),"content-state":{"status":"x","minutesAway":1}}}"#),
                                  target: .pushToStart, at: t0 + 1)
        XCTAssertEqual(events.map(\.kind), [.dropped])
    }

    func testCustomerIOMetadataBecomesTheTrackingWidgetURL() throws {
        let state: JSONValue = ["status": "x", "cioMetadata": ["deliveryId": "D1", "deliveryToken": "T1", "deepLink": "pushlab://orders/1"]]
        let url = try XCTUnwrap(CIOLiveActivityTrackingURL.url(forContentState: state))
        XCTAssertTrue(url.hasPrefix("cio-live-activity://open?cio_delivery_id=D1&cio_delivery_token=T1&cio_redirect="), url)
        let parsed = try XCTUnwrap(CIOLiveActivityTrackingURL.parse(url))
        XCTAssertEqual(parsed.redirect, "pushlab://orders/1")
        XCTAssertNil(CIOLiveActivityTrackingURL.url(forContentState: ["cioMetadata": ["deliveryToken": "T1"]]), "a token alone tracks nothing")
        XCTAssertNil(CIOLiveActivityTrackingURL.parse("pushlab://orders/1"))
    }
}

/// `pushlab activity tap`: handleWidgetUrl exactly once (docs/specs/device-side.md §7).
final class LiveActivityTapReplayTests: XCTestCase {
    let tracking = "cio-live-activity://open?cio_delivery_id=D1&cio_delivery_token=T1&cio_redirect=pushlab://orders/1"

    func testUISceneColdAndWarmPathsEachHandleItOnce() {
        let profile = LiveActivityProfile(lifecycle: .uiscene, widgetURLHandlers: [.sceneWillConnect, .sceneOpenURLContexts])
        for launch in LiveActivityTapReplay.Launch.allCases {
            let o = LiveActivityTapReplay.replay(url: tracking, profile: profile, launch: launch)
            XCTAssertEqual(o.verdict, .ok)
            XCTAssertEqual(o.openedReports, ["D1"])
            XCTAssertEqual(o.destination, "pushlab://orders/1")
        }
    }

    func testAMissingWarmHandlerReportsNoOpenAndSaysWhereToCallIt() {
        let profile = LiveActivityProfile(lifecycle: .uiscene, widgetURLHandlers: [.sceneWillConnect])
        let o = LiveActivityTapReplay.replay(url: tracking, profile: profile, launch: .warm)
        XCTAssertEqual(o.verdict, .missingHandler)
        XCTAssertEqual(o.openedReports, [])
        XCTAssertTrue(o.fix?.contains("scene(_:openURLContexts:)") ?? false, o.fix ?? "")
    }

    func testExpoNativeIntentPlusLinkingListenerReportsTwoOpens() {
        let profile = LiveActivityProfile(lifecycle: .uiscene, widgetURLHandlers: [.expoNativeIntent, .linkingListener])
        let o = LiveActivityTapReplay.replay(url: tracking, profile: profile, launch: .cold)
        XCTAssertEqual(o.verdict, .doubleHandling)
        XCTAssertEqual(o.openedReports, ["D1", "D1"])
        XCTAssertTrue(o.fix?.contains("Linking") ?? false)
    }

    func testAnOrdinaryURLComesBackUnchangedAndATrackingURLWithoutRedirectRoutesNothing() {
        let profile = LiveActivityProfile(lifecycle: .appdelegate, widgetURLHandlers: [.appOpenURL])
        let plain = LiveActivityTapReplay.replay(url: "pushlab://orders/9", profile: profile, launch: .warm)
        XCTAssertEqual(plain.destination, "pushlab://orders/9")
        XCTAssertEqual(plain.openedReports, [])
        let bare = LiveActivityTapReplay.replay(url: "cio-live-activity://open?cio_delivery_id=D2", profile: profile, launch: .cold)
        XCTAssertEqual(bare.openedReports, ["D2"])
        XCTAssertNil(bare.destination)
        XCTAssertEqual(bare.verdict, .ok)
    }
}

import Foundation
import PushCore
@testable import PushDevice
import TestSupport
import XCTest

/// The tap itself (docs/specs/device-side.md §3, §5, §6): opened only for the default action of a
/// Customer.io push; the push's `cio_sdk_` image files deleted after the tap; the order of work;
/// cold-start taps that never reach the delegate.
final class TapHandlerTests: XCTestCase {
    let clock = ManualTimeSource(Date(timeIntervalSince1970: 1_775_126_768))

    func app(_ mode: SDKMode = .cio4, autoTrack: Bool = true, os: String = "17.4") -> AppProfile {
        AppProfile(bundleID: "io.pushlab.demo", extensionBundleID: "io.pushlab.demo.richpush", cdpAPIKey: "cdp-key",
                   metricsBaseURL: "http://collector.test", autoTrackPushEvents: autoTrack, sdkMode: mode,
                   siteID: "site", apiKey: "api", osVersion: os)
    }

    func payload(link: String? = "pushlab://orders/1", cio: Bool = true) throws -> JSONValue {
        var text = #"{"aps":{"alert":"hi"}"#
        if let link { text += #","CIO":{"push":{"link":"\#(link)"}}"# }
        if cio { text += #","CIO-Delivery-ID":"dlv-1","CIO-Delivery-Token":"tok-1""# }
        return try JSONParser().parse(text + "}").root
    }

    func handler(_ app: AppProfile, _ links: DeepLinkProfile, _ transport: EventPipelineScriptedTransport) -> (TapHandler, EventPipeline) {
        let pipeline = EventPipeline(configuration: EventPipelineConfiguration(profile: app), transport: transport, time: clock)
        return (TapHandler(app: app, deepLinks: links, pipeline: pipeline, identity: PipelineIdentity(anonymousId: "anon"), time: clock), pipeline)
    }

    let links = DeepLinkProfile(urlSchemes: ["pushlab"], appDelegate: .init(openURL: .init(accepts: ["pushlab://*"])),
                                otherNotificationDelegates: ["Firebase"])

    func testDefaultTapQueuesOpenedThenDeletesImagesThenFollowsTheLinkThenDelegatesThenCompletes() async throws {
        let dir = Fixtures.temporaryDirectory("taps")
        defer { try? FileManager.default.removeItem(at: dir) }
        let cioDir = dir.appendingPathComponent("cio_sdk")
        try FileManager.default.createDirectory(at: cioDir, withIntermediateDirectories: true)
        let image = cioDir.appendingPathComponent("\(UUID().uuidString)_kettle.png").path
        let other = dir.appendingPathComponent("app-owned.png").path
        for path in [image, other] { _ = FileManager.default.createFile(atPath: path, contents: Data([0x89, 0x50])) }

        let (h, pipeline) = handler(app(), links, EventPipelineScriptedTransport())
        let outcome = await h.handle(payload: try payload(), tap: Tap(action: .default, state: .warm), attachments: [
            NotificationAttachment(identifier: "cio_sdk_abcdefghij", path: image),
            NotificationAttachment(identifier: "app-attachment", path: other),
        ])
        XCTAssertEqual(outcome.steps, [.openedMetricQueued, .imageFilesDeleted, .deepLinkHandled, .otherDelegatesCalled, .completionHandlerCalled])
        XCTAssertEqual(outcome.completionHandlerCalls, 1)
        XCTAssertFalse(FileManager.default.fileExists(atPath: image), "the SDK's image must be deleted after the tap")
        XCTAssertTrue(FileManager.default.fileExists(atPath: other), "attachments the SDK did not create stay")
        XCTAssertEqual(outcome.deletedImageFiles, [image])
        XCTAssertEqual(outcome.destination, .appRoute(handler: "application(_:open:options:)", url: "pushlab://orders/1"))

        let queued = await pipeline.queuedEvents
        XCTAssertEqual(queued.count, 1)
        XCTAssertEqual(queued.first?.properties, ["metric": "opened", "deliveryId": "dlv-1", "recipient": "tok-1"])
        XCTAssertEqual(queued.first?.timestamp, clock.now)
    }

    func testDismissAndCustomActionsReportNothingAndKeepTheImage() async throws {
        let dir = Fixtures.temporaryDirectory("taps")
        defer { try? FileManager.default.removeItem(at: dir) }
        let image = dir.appendingPathComponent("img.png").path
        _ = FileManager.default.createFile(atPath: image, contents: Data([1]))
        for action in [TapAction.dismiss, .custom("archive")] {
            let (h, pipeline) = handler(app(), links, EventPipelineScriptedTransport())
            let outcome = await h.handle(payload: try payload(), tap: Tap(action: action, state: .warm),
                                         attachments: [NotificationAttachment(identifier: "cio_sdk_x", path: image)])
            XCTAssertNil(outcome.openedEvent, "\(action)")
            XCTAssertNil(outcome.resolution, "\(action) must not follow the link")
            XCTAssertEqual(outcome.completionHandlerCalls, 1)
            let queued = await pipeline.queuedEvents
            XCTAssertTrue(queued.isEmpty)
        }
        XCTAssertTrue(FileManager.default.fileExists(atPath: image))
    }

    func testAutomaticTrackingOffStillFollowsTheLinkButReportsNoOpened() async throws {
        let (h, pipeline) = handler(app(autoTrack: false), links, EventPipelineScriptedTransport())
        let outcome = await h.handle(payload: try payload(), tap: Tap())
        XCTAssertNil(outcome.openedEvent)
        XCTAssertEqual(outcome.destination.kind, "app-route")
        XCTAssertTrue(outcome.diagnostics.contains(.automaticTrackingOff))
        let queued = await pipeline.queuedEvents
        XCTAssertTrue(queued.isEmpty)
    }

    func testLegacyModeSendsOpenedToPushEvents() async throws {
        let transport = EventPipelineScriptedTransport()
        let (h, pipeline) = handler(app(.cioLegacy), links, transport)
        _ = await h.handle(payload: try payload(), tap: Tap())
        await pipeline.flush()
        let request = try XCTUnwrap(transport.requests.first)
        XCTAssertEqual(request.url, "http://collector.test/push/events")
        let body = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any])
        XCTAssertEqual(body["event"] as? String, "opened")
        XCTAssertEqual(body["delivery_id"] as? String, "dlv-1")
    }

    func testColdStartTapWithoutLaunchOptionHandlingIsNeitherCountedNorFollowed() async throws {
        var lost = links
        lost.coldStartTaps = .launchOptions
        let (h, pipeline) = handler(app(), lost, EventPipelineScriptedTransport())
        let outcome = await h.handle(payload: try payload(), tap: Tap(action: .default, state: .cold))
        XCTAssertEqual(outcome.delivery, .lost)
        XCTAssertNil(outcome.openedEvent)
        XCTAssertEqual(outcome.completionHandlerCalls, 0)
        XCTAssertEqual(outcome.diagnostics, [.coldStartTapNotCounted])
        let queued = await pipeline.queuedEvents
        XCTAssertTrue(queued.isEmpty)

        lost.handlesLaunchOptions = true
        let (h2, p2) = handler(app(), lost, EventPipelineScriptedTransport())
        let counted = await h2.handle(payload: try payload(), tap: Tap(action: .default, state: .cold))
        XCTAssertEqual(counted.delivery, .launchOptions)
        XCTAssertNotNil(counted.openedEvent)
        let queued2 = await p2.queuedEvents
        XCTAssertEqual(queued2.count, 1)
    }

    func testForegroundPushIsTappableOnlyWhenShown() async throws {
        var hidden = links
        hidden.showInForeground = false
        let (h, _) = handler(app(), hidden, EventPipelineScriptedTransport())
        let notShown = await h.handle(payload: try payload(), tap: Tap(action: .default, state: .foreground))
        XCTAssertFalse(notShown.presented)
        XCTAssertEqual(notShown.steps, [.willPresent])
        XCTAssertNil(notShown.openedEvent)

        let (h2, _) = handler(app(), links, EventPipelineScriptedTransport())
        let shown = await h2.handle(payload: try payload(), tap: Tap(action: .default, state: .foreground))
        XCTAssertTrue(shown.presented)
        XCTAssertEqual(shown.steps.first, .willPresent)
        XCTAssertNotNil(shown.openedEvent)
    }

    func testAPushWithoutTheCustomerIOKeysIsForwardedAndCompletedOnce() async throws {
        for delegates in [[String](), ["Firebase"]] {
            var p = links
            p.otherNotificationDelegates = delegates
            let (h, _) = handler(app(), p, EventPipelineScriptedTransport())
            let outcome = await h.handle(payload: try payload(cio: false), tap: Tap())
            XCTAssertFalse(outcome.isCustomerIOPush)
            XCTAssertNil(outcome.openedEvent)
            XCTAssertNil(outcome.resolution)
            XCTAssertEqual(outcome.completionHandlerCalls, 1)
        }
    }

    func testLinkNeedingPercentEncodingOpensNothingBeforeIOS17() async throws {
        let (old, _) = handler(app(os: "16.7"), links, EventPipelineScriptedTransport())
        let before = await old.handle(payload: try payload(link: "pushlab://orders/summer sale"), tap: Tap())
        XCTAssertEqual(before.destination, .nothing)
        XCTAssertNil(before.tier)
        XCTAssertEqual(before.diagnostics.first { $0.code == "link-not-percent-encoded" }?.severity, .error)

        let (new, _) = handler(app(os: "17.4"), links, EventPipelineScriptedTransport())
        let after = await new.handle(payload: try payload(link: "pushlab://orders/summer sale"), tap: Tap())
        XCTAssertEqual(after.destination, .appRoute(handler: "application(_:open:options:)", url: "pushlab://orders/summer%20sale"))
    }
}

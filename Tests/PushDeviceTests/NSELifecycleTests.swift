import Foundation
import PushCore
import PushDevice
import PushHTTP
import TestSupport
import XCTest

/// The extension's lifecycle rules (docs/specs/device-side.md §2), driven by a scripted transport
/// on an emulated clock that only the test moves (`ManualNSEClock`): a run that should finish in
/// time cannot expire however slow the machine is, and a budget expires exactly when the test
/// moves time past it, after the work it waits for has settled. No assertion is on a timing.
final class NSELifecycleTests: XCTestCase {
    private var container: URL!
    private let clock = ManualNSEClock()
    private let ok = HTTPResponse(status: 200, body: Array("{}".utf8))

    override func setUp() { container = Fixtures.temporaryDirectory("nse-life") }
    override func tearDown() { try? FileManager.default.removeItem(at: container) }

    private func profile(_ mode: SDKMode = .cio4, autoTrack: Bool = true) -> AppProfile {
        var p = AppProfile(bundleID: "io.pushlab.demo", extensionBundleID: "io.pushlab.demo.richpush", cdpAPIKey: "key",
                           metricsBaseURL: "https://metrics.test", sdkMode: mode, siteID: "site", apiKey: "api")
        p.autoTrackPushEvents = autoTrack
        return p
    }

    /// One run. With `advance`, time moves to that instant once `sleepers` sleepers wait on the
    /// clock (the lifecycle's timers and the stalled requests) and the `settled` work is done.
    private func run(_ payload: String, profile: AppProfile, budget: Duration = .milliseconds(400), killAt: Duration? = nil,
                     clock nseClock: (any NSEClock)? = nil, advance: (to: Duration, sleepers: Int, settled: Set<NSEWork>)? = nil,
                     transport: ScriptedTransport) async throws -> (NSERunReport, any PendingMetricStore) {
        let store = try PendingMetricStores.open(profile: profile, process: .notificationServiceExtension, container: container)
        var configuration = NSEConfiguration(profile: profile, budget: budget, killAt: killAt, store: store, temporaryDirectory: container)
        let settled = LockedSet<NSEWork>()
        configuration.onSettled = { settled.insert($0) }
        let nse = NotificationServiceExtension(configuration: configuration, transport: transport, clock: nseClock ?? clock)
        let root = try JSONParser().parse(payload).root
        let ended = LockedSet<Bool>()  // holds true once the run has returned (the watchdog reads it)
        let running = Task { let report = await nse.run(payload: root); ended.insert(true); return report }
        if let advance {
            let clock = self.clock
            let ready = await Poll.until { clock.waiting >= advance.sleepers && settled.all.isSuperset(of: advance.settled) }
            XCTAssertTrue(ready, "waited for \(advance.sleepers) sleepers and \(advance.settled) settled; saw \(clock.waiting) and \(settled.all)")
            clock.advance(to: advance.to)
        }
        // A run that waits forever on the clock would hang the suite: fail instead, and move
        // time on by an hour so the run (and the test) ends.
        if await !Poll.until(timeout: 30, { !ended.all.isEmpty }) {
            XCTFail("the extension run did not end on its own; moved the clock on by an hour to end it")
            clock.advance(to: .seconds(3600))
        }
        return (await running.value, store)
    }

    private func imageThenMetric(image: ScriptedTransport.Reply, metric: ScriptedTransport.Reply) -> ScriptedTransport {
        ScriptedTransport(clock: clock) { req, _ in req.url.hasPrefix("https://metrics.test") ? metric : image }
    }

    func testImageReadyBeforeExpiryDeliversRichContentOnce() async throws {
        let t = imageThenMetric(image: .init(response: HTTPResponse(status: 200, headers: ["content-type": "image/png"], body: TestImages.png())),
                                metric: .init(response: ok))
        let (r, store) = try await run(TestPayloads.cio(image: "https://img.test/banner.png"), profile: profile(), transport: t)
        XCTAssertTrue(r.handled)
        XCTAssertFalse(r.expired)
        XCTAssertEqual(r.delivered, .rich)
        XCTAssertEqual(r.contentHandlerCalls, 1)
        XCTAssertEqual(r.notification?.attachments.count, 1)
        XCTAssertTrue(r.notification!.attachments[0].identifier.range(of: "^cio_sdk_[a-z]{10}$", options: .regularExpression) != nil)
        XCTAssertTrue(r.notification!.attachments[0].path.contains("/cio_sdk/"))
        XCTAssertTrue(r.notification!.attachments[0].path.hasSuffix("_banner.png"))
        XCTAssertEqual(r.metric.result, .acknowledged)
        XCTAssertTrue(r.pendingRow.stored)
        XCTAssertTrue(r.pendingRow.removed)
        XCTAssertEqual(try store.loadAll(), [])
    }

    func testStallingImageDeliversOriginalContentAtExpiryAndKeepsThePendingRow() async throws {
        let t = imageThenMetric(image: .init(delay: .seconds(10), response: HTTPResponse(status: 200, body: TestImages.png())),
                                metric: .init(delay: .seconds(10), response: ok))
        let (r, store) = try await run(TestPayloads.cio(image: "https://img.test/a.png"), profile: profile(),
                                       advance: (to: .milliseconds(400), sleepers: 3, settled: []), transport: t)
        XCTAssertTrue(r.expired)
        XCTAssertEqual(r.delivered, .original)
        XCTAssertEqual(r.contentHandlerCalls, 1)
        XCTAssertEqual(r.notification?.title, "Sale")
        XCTAssertEqual(r.image.verdict, .dropped)
        XCTAssertEqual(r.metric.result, .cancelled)
        XCTAssertEqual(try store.loadAll().count, 1, "the cancelled metric's row stays for recovery")
        let events = r.timeline.map(\.event)
        let expiry = events.firstIndex { $0.hasPrefix("budget expired") }!
        let handler = events.firstIndex { $0.hasPrefix("content handler called") }!
        XCTAssertLessThan(expiry, handler)
    }

    func testImageReadyButMetricStallingDeliversRichContentAtExpiry() async throws {
        let t = imageThenMetric(image: .init(response: HTTPResponse(status: 200, body: TestImages.jpeg())),
                                metric: .init(delay: .seconds(10), response: ok))
        let (r, _) = try await run(TestPayloads.cio(image: "https://img.test/photo.jpg"), profile: profile(),
                                   advance: (to: .milliseconds(400), sleepers: 2, settled: [.image]), transport: t)
        XCTAssertTrue(r.expired)
        XCTAssertEqual(r.delivered, .rich)
        XCTAssertEqual(r.contentHandlerCalls, 1)
    }

    func testNonCIOPushIsNotHandledAndContentIsUntouched() async throws {
        let t = ScriptedTransport { _, _ in .init(response: HTTPResponse(status: 200)) }
        let (r, store) = try await run(#"{"aps":{"alert":"hi","mutable-content":1},"CIO-Delivery-ID":7}"#, profile: profile(), transport: t)
        XCTAssertTrue(r.extensionRan)
        XCTAssertFalse(r.handled)
        XCTAssertEqual(r.contentHandlerCalls, 0)
        XCTAssertEqual(r.notification?.body, "hi")
        XCTAssertTrue(t.requests.isEmpty)
        XCTAssertEqual(try store.loadAll(), [])
    }

    func testMissingMutableContentMeansTheExtensionNeverRuns() async throws {
        let t = ScriptedTransport { _, _ in .init(response: HTTPResponse(status: 200)) }
        let (r, _) = try await run(TestPayloads.cio(image: "https://img.test/a.png", mutable: false), profile: profile(), transport: t)
        XCTAssertFalse(r.extensionRan)
        XCTAssertEqual(r.delivered, .original)
        XCTAssertEqual(r.metric.result, .skipped)
        XCTAssertTrue(t.requests.isEmpty)
    }

    func testAutoTrackOffSendsNoMetricAndWritesNoRow() async throws {
        let t = imageThenMetric(image: .init(response: HTTPResponse(status: 200, body: TestImages.gif())), metric: .init(response: ok))
        let (r, store) = try await run(TestPayloads.cio(image: "https://img.test/a.gif"), profile: profile(autoTrack: false), transport: t)
        XCTAssertEqual(r.metric.result, .skipped)
        XCTAssertFalse(r.pendingRow.stored)
        XCTAssertEqual(r.delivered, .rich)
        XCTAssertFalse(t.requests.contains { $0.url.hasPrefix("https://metrics.test") })
        XCTAssertEqual(try store.loadAll(), [])
    }

    func testKillStopsEverythingAndLeavesThePendingRow() async throws {
        let t = imageThenMetric(image: .init(delay: .seconds(5), response: HTTPResponse(status: 200, body: TestImages.png())),
                                metric: .init(delay: .milliseconds(400), response: ok))
        // Sleepers: the budget, the kill instant, the stalled image and the stalled metric.
        let (r, store) = try await run(TestPayloads.cio(image: "https://img.test/a.png"), profile: profile(), budget: .seconds(5),
                                       killAt: .milliseconds(100), advance: (to: .milliseconds(100), sleepers: 4, settled: []), transport: t)
        XCTAssertTrue(r.killed)
        XCTAssertEqual(r.contentHandlerCalls, 0)
        XCTAssertEqual(r.delivered, .original)
        XCTAssertFalse(r.pendingRow.removed)
        clock.advance(to: .seconds(1))  // the metric's reply would have arrived by now
        XCTAssertEqual(try store.loadAll().count, 1, "nothing after the kill removes the row")
        XCTAssertTrue(r.timeline.last!.event.contains("killed"))
    }

    /// Issue 41: the work's own timeout and the expiry at one instant. The transport here gives
    /// up at once, before the emulated clock moves — what a loaded machine does when the
    /// transport's timer runs before the expiry timer's task. In the model the image's timeout
    /// is the SDK's 30 s resource timeout from the download's start, after the 400 ms budget:
    /// the expiry ends the run and cancels the download, and the report says expired.
    func testAnImageTimeoutReachedBeforeTheExpiryTimerRunsStillEndsTheRunAsAnExpiry() async throws {
        let t = imageThenMetric(image: .init(error: .timedOut(after: .milliseconds(1))), metric: .init(response: ok))
        let (r, store) = try await run(TestPayloads.cio(image: "https://img.test/a.png"), profile: profile(),
                                       advance: (to: .milliseconds(400), sleepers: 1, settled: [.metric]), transport: t)
        XCTAssertTrue(r.expired, "the download's timeout lies past the budget: the expiry ends the run")
        XCTAssertEqual(r.delivered, .original)
        XCTAssertEqual(r.contentHandlerCalls, 1)
        XCTAssertEqual(r.image.code, "cancelled-at-expiry")
        XCTAssertEqual(r.metric.result, .acknowledged)
        XCTAssertEqual(try store.loadAll(), [])
        let request = try XCTUnwrap(t.requests.first { $0.url.hasPrefix("https://img.test") })
        XCTAssertEqual(request.timeout, CIONSESession.resourceTimeout, "the SDK's own timeout, not the remaining budget")
    }

    /// The same for the metric: its attempt's timeout is bounded by the deadline, so it ends at
    /// the deadline in the model however early the transport gave up; the expiry comes first, the
    /// request counts as cancelled and its pending row stays.
    func testAMetricTimeoutAtTheDeadlineIsAnExpiryNotAFailedMetric() async throws {
        let t = imageThenMetric(image: .init(response: HTTPResponse(status: 200, headers: ["content-type": "image/png"], body: TestImages.png())),
                                metric: .init(error: .timedOut(after: .milliseconds(1))))
        let (r, store) = try await run(TestPayloads.cio(image: "https://img.test/banner.png"), profile: profile(),
                                       advance: (to: .milliseconds(400), sleepers: 1, settled: [.image]), transport: t)
        XCTAssertTrue(r.expired)
        XCTAssertEqual(r.delivered, .rich, "the image was ready before the deadline")
        XCTAssertEqual(r.metric.result, .cancelled)
        XCTAssertEqual(r.metric.attempts, [], "the attempt was still in flight at the deadline")
        XCTAssertEqual(try store.loadAll().count, 1, "the cancelled metric's row stays for recovery")
    }

    /// A metric that failed before the deadline keeps its failure, and the run ends without
    /// waiting for the expiry (the deadline decides only what ends at or after it).
    func testCIO4SendsTheMetricOnceEvenWhenItFails() async throws {
        let t = imageThenMetric(image: .init(response: HTTPResponse(status: 200, body: TestImages.png())),
                                metric: .init(response: HTTPResponse(status: 503)))
        let (r, store) = try await run(TestPayloads.cio(image: nil), profile: profile(), transport: t)
        XCTAssertEqual(r.metric.result, .failed)
        XCTAssertEqual(r.metric.attempts.count, 1)
        XCTAssertEqual(try store.loadAll().count, 1)
    }

    func testImprovedModeRetriesWithinTheBudgetAndDedupsTheStore() async throws {
        // The retries back off on the extension's clock, so this run keeps real time (a 5 s budget
        // for three instant answers and two short back-offs).
        let t = ScriptedTransport { req, n in .init(response: HTTPResponse(status: n < 2 ? 503 : 200, body: Array("{}".utf8))) }
        let (r, store) = try await run(TestPayloads.cio(image: nil), profile: profile(.improved), budget: .seconds(5),
                                       clock: ScaledClock(), transport: t)
        XCTAssertEqual(store.kind, .sqlite)
        XCTAssertEqual(r.metric.result, .acknowledged)
        XCTAssertEqual(r.metric.attempts.map(\.status), [503, 503, 200])
        XCTAssertTrue(r.pendingRow.removed)
        XCTAssertTrue(String(decoding: t.requests[0].body, as: UTF8.self).contains(#""messageId":"delivered-RPILAgUBcRhIBqSfeiIwdIYJKxTY""#))
    }

    func testLegacyModePostsPushEventsWithSiteCredentials() async throws {
        let t = ScriptedTransport { _, _ in .init(response: HTTPResponse(status: 200, body: Array("{}".utf8))) }
        let (r, _) = try await run(TestPayloads.cio(image: nil), profile: profile(.cioLegacy), transport: t)
        XCTAssertEqual(r.metric.result, .acknowledged)
        let req = t.requests[0]
        XCTAssertEqual(req.url, "https://metrics.test/push/events")
        XCTAssertEqual(req.headers["authorization"], "Basic " + Data("site:api".utf8).base64EncodedString())
        let body = String(decoding: req.body, as: UTF8.self)
        XCTAssertTrue(body.hasPrefix(#"{"delivery_id":"RPILAgUBcRhIBqSfeiIwdIYJKxTY","device_id":"0f8b3e5a1c2d4e5f8a9b0c1d2e3f4a5b","event":"delivered","timestamp":"#), body)
    }

    func testWrongExtensionSuffixRunsWithTheStoreSilentlyOff() async throws {
        var p = profile()
        p.extensionBundleID = "io.pushlab.demo.PushExtension"
        let t = ScriptedTransport { _, _ in .init(response: HTTPResponse(status: 200, body: Array("{}".utf8))) }
        let (r, _) = try await run(TestPayloads.cio(image: nil), profile: p, transport: t)
        XCTAssertEqual(r.metric.result, .acknowledged)
        XCTAssertFalse(r.pendingRow.stored)
        XCTAssertTrue(r.pendingRow.note?.contains("group.io.pushlab.demo.PushExtension.cio") ?? false, r.pendingRow.note ?? "")
    }
}

/// A set several tasks add to.
private final class LockedSet<Element: Hashable & Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var elements: Set<Element> = []  // protected by `lock`
    func insert(_ element: Element) { _ = lock.withLock { elements.insert(element) } }
    var all: Set<Element> { lock.withLock { elements } }
}

/// Issue 23 item 2: an image URL without a file extension, as image CDNs serve them. iOS names
/// the attachment from the download (URLResponse.suggestedFilename): Content-Disposition, else
/// the URL, else the URL plus the Content-Type's extension; the timeline says which one.
final class ExtensionlessImageURLTests: XCTestCase {
    private var container: URL!
    override func setUp() { container = Fixtures.temporaryDirectory("nse-ext") }
    override func tearDown() { try? FileManager.default.removeItem(at: container) }

    func testTheSuggestedNameComesFromDispositionThenURLThenContentType() {
        let png: HTTPHeaders = ["content-type": "image/png"]
        let named = AttachmentBuilder.suggestedName(url: "https://cdn.test/image?id=4", headers: ["content-disposition": #"inline; filename="banner.jpg""#])
        XCTAssertEqual(named.name, "banner.jpg")
        XCTAssertEqual(named.source, "Content-Disposition")
        XCTAssertEqual(AttachmentBuilder.suggestedName(url: "https://cdn.test/a/photo.gif", headers: png).name, "photo.gif", "the URL's extension wins over the type")
        let typed = AttachmentBuilder.suggestedName(url: "https://cdn.test/image?id=4", headers: png)
        XCTAssertEqual(typed.name, "image.png")
        XCTAssertEqual(typed.source, "the URL's path + the extension of Content-Type image/png")
        XCTAssertEqual(AttachmentBuilder.suggestedName(url: "https://cdn.test/image?id=4", headers: ["content-type": "application/octet-stream"]).name, "image")
    }

    private func run(headers: HTTPHeaders) async throws -> NSERunReport {
        var profile = AppProfile(bundleID: "io.pushlab.demo", extensionBundleID: "io.pushlab.demo.richpush", cdpAPIKey: "key",
                                 metricsBaseURL: "https://metrics.test", sdkMode: .cio4)
        profile.autoTrackPushEvents = false
        let transport = ScriptedTransport { _, _ in .init(response: HTTPResponse(status: 200, headers: headers, body: TestImages.png())) }
        let nse = NotificationServiceExtension(configuration: NSEConfiguration(profile: profile, temporaryDirectory: container),
                                               transport: transport, clock: ManualNSEClock())
        return await nse.run(payload: try JSONParser().parse(TestPayloads.cio(image: "https://cdn.test/image?id=4")).root)
    }

    func testAnImageContentTypeLetsAnExtensionlessURLAttach() async throws {
        let r = try await run(headers: ["content-type": "image/png"])
        XCTAssertEqual(r.delivered, .rich, "\(r.timeline)")
        XCTAssertTrue(r.timeline.contains { $0.event.contains("image file name image.png (from the URL's path + the extension of Content-Type image/png)") },
                      "\(r.timeline.map(\.event))")
    }

    func testWithoutATypeTheExtensionlessImageIsDroppedAndTheTimelineSaysWhy() async throws {
        let r = try await run(headers: [:])
        XCTAssertEqual(r.delivered, .original)
        XCTAssertEqual(r.image.verdict, .dropped)
        XCTAssertTrue(r.timeline.contains { $0.event.contains("image file name image (from the URL's path)") }, "\(r.timeline.map(\.event))")
    }
}

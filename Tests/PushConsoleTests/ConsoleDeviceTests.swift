import Foundation
import PushConsole
import PushCore
import PushHTTP
import TestSupport
import XCTest

/// The virtual iPhone behind `serve --console`: the real NSE emulator runs each accepted push,
/// and the console shows its bars, preview, image and tap; the metric reaches the collector.
final class ConsoleDeviceTests: XCTestCase {
    private func richPush(_ h: ConsoleHarness, image: String = "demo-image.png") async throws -> String {
        let payload = ConsoleAPITests.richPayload.replacingOccurrences(of: "IMAGE", with: h.images.url(for: image))
        let sent = try await h.send(payload)
        XCTAssertTrue(sent.isAccepted)
        return sent.apnsID
    }

    /// The detail of push 1 once its extension has finished.
    private func deviceOfFirstPush(_ h: ConsoleHarness) async throws -> [String: Any] {
        var device: [String: Any]?
        _ = try await h.eventually {
            device = try await h.getJSON("/console/api/pushes/1").json["device"] as? [String: Any]
            return device != nil
        }
        return try XCTUnwrap(device, "the virtual iPhone never finished the push")
    }

    func testARichPushShowsTheTimelineBarsAgainstTheBudgetAndThePreview() async throws {
        let h = try ConsoleHarness()
        addTeardownBlock { await h.stop() }
        let id = try await richPush(h)
        let device = try await deviceOfFirstPush(h)
        XCTAssertEqual(device["messageID"] as? String, id)
        // ExtensionBars reads these off the real extension's timeline lines.
        let bars = try XCTUnwrap(device["bars"] as? [String: Any])
        XCTAssertEqual(bars["budgetMs"] as? Int, 30_000)
        let labels = (bars["bars"] as? [[String: Any]])?.map { $0["label"] as? String }
        XCTAssertEqual(labels, ["image download", "metric request"])
        for bar in bars["bars"] as? [[String: Any]] ?? [] {
            XCTAssertEqual(bar["finished"] as? Bool, true, "\(bar)")
            XCTAssertLessThanOrEqual(bar["startMs"] as? Int ?? -1, bar["endMs"] as? Int ?? -2)
        }
        XCTAssertTrue(((bars["bars"] as? [[String: Any]])?.first?["outcome"] as? String)?.hasPrefix("image attached") == true)
        XCTAssertEqual((bars["marks"] as? [[String: Any]])?.map { $0["label"] as? String }, ["content handler"])
        let notification = try XCTUnwrap((device["report"] as? [String: Any])?["notification"] as? [String: Any])
        XCTAssertEqual(notification["title"] as? String, "Spring sale")
        XCTAssertEqual(notification["subtitle"] as? String, "Today only")
        XCTAssertEqual(notification["body"] as? String, "30% off")
        let tap = try XCTUnwrap(device["tap"] as? [String: Any])
        XCTAssertEqual(tap["tier"] as? Int, 1)
        XCTAssertEqual(tap["destination"] as? String, "app-route")
        XCTAssertEqual(device["app"] as? String, "io.pushlab.demo")
    }

    func testTheAttachedImageIsServedForTheThumbnail() async throws {
        let h = try ConsoleHarness()
        addTeardownBlock { await h.stop() }
        let id = try await richPush(h)
        _ = try await deviceOfFirstPush(h)
        let image = try await h.get("/console/api/images/\(id)")
        XCTAssertEqual(image.status, 200)
        XCTAssertEqual(image.headers["content-type"], "image/png")
        XCTAssertEqual(Data(image.body), FileManager.default.contents(atPath: Fixtures.path("payloads/assets/demo-image.png")))
        let none = try await h.get("/console/api/images/not-an-id")
        XCTAssertEqual(none.status, 404)
        XCTAssertEqual(none.json["field"] as? String, "/messageID")
    }

    func testADroppedImageLeavesTheOriginalContentAndSaysWhy() async throws {
        let h = try ConsoleHarness()
        addTeardownBlock { await h.stop() }
        try await richPush(h, image: "missing.png")
        let device = try await deviceOfFirstPush(h)
        let report = try XCTUnwrap(device["report"] as? [String: Any])
        XCTAssertEqual(report["delivered"] as? String, "original")
        XCTAssertEqual((report["image"] as? [String: Any])?["verdict"] as? String, "dropped")
        let bar = (device["bars"] as? [String: Any]).flatMap { ($0["bars"] as? [[String: Any]])?.first }
        XCTAssertTrue((bar?["outcome"] as? String)?.hasPrefix("image dropped") == true, "\(String(describing: bar))")
    }

    func testDevicesListTheVirtualPhoneWithItsNotifications() async throws {
        let h = try ConsoleHarness()
        addTeardownBlock { await h.stop() }
        try await richPush(h)
        _ = try await deviceOfFirstPush(h)
        let r = try await h.getJSON("/console/api/devices")
        let device = try XCTUnwrap((r.json["devices"] as? [[String: Any]])?.first)
        XCTAssertEqual(device["name"] as? String, "virtual iPhone")
        XCTAssertEqual(device["sdkMode"] as? String, "cio-4")
        XCTAssertEqual((device["notifications"] as? [Any])?.count, 1)
    }

    func testMetricsCarryTheCollectorsReportOfTheDeliveredMetric() async throws {
        let h = try ConsoleHarness()
        addTeardownBlock { await h.stop() }
        try await richPush(h)
        _ = try await deviceOfFirstPush(h)
        let r = try await h.getJSON("/console/api/metrics")
        XCTAssertEqual(r.status, 200)
        let report = try XCTUnwrap(r.json["report"] as? [String: Any])
        XCTAssertEqual((report["totals"] as? [String: Any])?["delivered"] as? Int, 1)
        // "sent" comes from the gateway's records, kept in memory without --db (was "–").
        XCTAssertEqual((report["totals"] as? [String: Any])?["sent"] as? Int, 1, "\(report["totals"] ?? "")")
        XCTAssertEqual(report["hasSentRecords"] as? Bool, true)
        let delivery = try XCTUnwrap((report["deliveries"] as? [[String: Any]])?.first)
        XCTAssertEqual(delivery["deliveryID"] as? String, "dlv-api-1")
        let bare = try ConsoleHarness(attachLab: false)
        addTeardownBlock { await bare.stop() }
        let none = try await bare.getJSON("/console/api/metrics")
        XCTAssertNil(none.json["report"] as? [String: Any])
        XCTAssertNotNil(none.json["note"] as? String)
    }

    /// Under load the virtual iPhone runs at most `phoneRunsPerSecond` extensions a second; the
    /// log still shows every push, and the device view marks the others "not simulated" with
    /// the reason (so the device view never claims a run that did not happen). The phone's
    /// token bucket reads a clock the test moves by hand, so the rate is checked exactly and no
    /// real time is measured: at 1 run a second, a burst runs one push; half a second later
    /// nothing; a second later one; after ten idle seconds one again (the bucket holds one
    /// second's worth, not ten).
    func testThePhoneRunsAtMostItsRatePerSecondAndMarksTheRestNotSimulated() async throws {
        let time = ManualTimeSource()
        var configuration = ConsoleConfiguration()
        configuration.phoneRunsPerSecond = 1
        configuration.phoneTime = time
        let h = try ConsoleHarness(configuration: configuration)
        addTeardownBlock { await h.stop() }
        var notifications: [[String: Any]] = []
        /// Sends `count` pushes, then waits until the device view shows every push so far, run or not.
        func send(_ count: Int, concurrently: Bool = false, total: Int) async throws {
            if concurrently {
                try await withThrowingTaskGroup(of: Bool.self) { group in
                    for i in 0..<count { group.addTask { try await h.send(#"{"aps": {"alert": {"title": "burst \#(i)"}}}"#).isAccepted } }
                    for try await accepted in group { XCTAssertTrue(accepted) }
                }
            } else {
                for i in 0..<count {
                    let accepted = try await h.send(#"{"aps": {"alert": {"title": "one \#(i)"}}}"#).isAccepted
                    XCTAssertTrue(accepted)
                }
            }
            let allThere = try await h.eventually(60) {
                let devices = try await h.getJSON("/console/api/devices").json["devices"] as? [[String: Any]] ?? []
                notifications = devices.first?["notifications"] as? [[String: Any]] ?? []
                return notifications.count == total && notifications.allSatisfy { $0["report"] != nil || $0["skipped"] != nil }
            }
            XCTAssertTrue(allThere, "every push is in the device view, run or not: \(notifications.count) of \(total)")
        }
        var runs: Int { notifications.filter { $0["report"] != nil }.count }

        try await send(12, concurrently: true, total: 12)
        XCTAssertEqual(runs, 1, "a burst of 12 at 1 run a second, with no time passing")
        time.advance(by: 0.5)
        try await send(1, total: 13)
        XCTAssertEqual(runs, 1, "half a second later: half a token, no run")
        time.advance(by: 0.5)
        try await send(1, total: 14)
        XCTAssertEqual(runs, 2, "a second after the burst: one more run")
        time.advance(by: 10)
        try await send(3, total: 17)
        XCTAssertEqual(runs, 3, "after 10 idle seconds the bucket holds one run, not 10")

        let skipped = notifications.compactMap { $0["skipped"] as? String }
        XCTAssertEqual(skipped.count, 14)
        XCTAssertTrue(skipped.allSatisfy { $0.contains("not simulated") && $0.contains("--console-phone-rate") }, "\(skipped)")
        let log = try await h.getJSON("/console/api/pushes")
        XCTAssertEqual(log.json["total"] as? Int, 17, "the log shows every push")
    }
}

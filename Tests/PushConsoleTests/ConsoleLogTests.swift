import Foundation
import PushConsole
import TestSupport
import XCTest

/// The console's log: ids in arrival order, newest-first pages, the ring's capacity, filters,
/// and the live stream's wait.
final class ConsoleLogTests: XCTestCase {
    private func push(_ n: Int, status: Int = 200, source: LoggedPush.Source = .gateway, platform: LoggedPush.Platform = .apns) -> LoggedPush {
        LoggedPush(receivedAt: Date(timeIntervalSince1970: Double(n)), source: source, platform: platform, app: "io.pushlab.demo",
                   target: String(format: "%064x", n), device: nil, pushType: "alert", status: status,
                   reason: status == 200 ? nil : "BadDeviceToken", messageID: "id-\(n)", uniqueID: nil, deliveryID: "dlv-\(n)",
                   headers: [:], payload: "{}")
    }

    func testIDsFollowArrivalAndPagesGoNewestFirst() {
        let log = ConsoleLog(capacity: 100)
        for n in 1...10 { log.append(push(n)) }
        let page = log.page(limit: 4)
        XCTAssertEqual(page.pushes.map(\.id), [10, 9, 8, 7])
        XCTAssertEqual(page.nextBefore, 7)
        XCTAssertEqual(log.page(before: 7, limit: 4).pushes.map(\.id), [6, 5, 4, 3])
        let last = log.page(before: 3, limit: 4)
        XCTAssertEqual(last.pushes.map(\.id), [2, 1])
        XCTAssertNil(last.nextBefore)
        XCTAssertEqual(log.push(id: 4)?.messageID, "id-4")
        XCTAssertNil(log.push(id: 11))
        XCTAssertNil(log.push(id: 0))
    }

    func testAFullRingDropsTheOldestAndPagesStopThere() {
        let log = ConsoleLog(capacity: 5)
        for n in 1...12 { log.append(push(n)) }
        XCTAssertEqual(log.count, 5)
        XCTAssertEqual(log.latest, 12)
        XCTAssertNil(log.push(id: 7), "dropped")
        XCTAssertEqual(log.push(id: 8)?.messageID, "id-8")
        XCTAssertEqual(log.page(limit: 100).pushes.map(\.id), [12, 11, 10, 9, 8])
        XCTAssertEqual(log.page(before: 20, limit: 2).pushes.map(\.id), [12, 11], "a before past the newest starts at the newest")
        XCTAssertEqual(log.pushes(after: 2, limit: 100).map(\.id), [8, 9, 10, 11, 12], "the stream resumes at the oldest held")
        XCTAssertEqual(log.pushes(after: 10, limit: 1).map(\.id), [11])
    }

    func testFiltersMatchIDsTokensAndOutcomes() {
        let log = ConsoleLog()
        log.append(push(1))
        log.append(push(2, status: 400))
        log.append(push(3, platform: .fcm))
        XCTAssertEqual(log.page(limit: 10, filter: LogFilter(outcome: .rejected)).pushes.map(\.id), [2])
        XCTAssertEqual(log.page(limit: 10, filter: LogFilter(outcome: .accepted)).pushes.map(\.id), [3, 1])
        XCTAssertEqual(log.page(limit: 10, filter: LogFilter(platform: .fcm)).pushes.map(\.id), [3])
        XCTAssertEqual(log.page(limit: 10, filter: LogFilter(query: "ID-3")).pushes.map(\.id), [3])
        XCTAssertEqual(log.page(limit: 10, filter: LogFilter(query: String(format: "%064x", 2).suffix(6).description)).pushes.map(\.id), [2])
        XCTAssertEqual(log.page(limit: 10, filter: LogFilter(query: "baddevice")).pushes.map(\.id), [2])
        XCTAssertTrue(LogFilter(query: "").isEmpty)
    }

    func testAWaitEndsWhenAPushArrives() async {
        let log = ConsoleLog()
        async let waited: Void = log.waitForPushes(after: 0, timeout: .seconds(30))
        while log.waitingCount == 0 { await Task.yield() }
        log.append(push(1))
        await waited
        XCTAssertEqual(log.waitingCount, 0)
    }

    func testAWaitEndsAtItsTimeoutOrWhenTheLogCloses() async {
        let log = ConsoleLog()
        await log.waitForPushes(after: 0, timeout: .milliseconds(20))
        XCTAssertEqual(log.waitingCount, 0)
        async let waited: Void = log.waitForPushes(after: 0, timeout: .seconds(30))
        while log.waitingCount == 0 { await Task.yield() }
        log.close()
        await waited
        await log.waitForPushes(after: 0, timeout: .seconds(30))  // closed: returns at once
    }

    /// The relay (or any other source) feeds the same log through `PushLogFeed`.
    func testAnotherSourceFeedsTheSameLog() async throws {
        let h = try ConsoleHarness(attachLab: false)
        addTeardownBlock { await h.stop() }
        let feed: any PushLogFeed = h.console.log
        feed.append(push(1, source: .relay, platform: .fcm))
        try await h.send(#"{"aps":{"alert":"from the gateway"}}"#)
        let page = try await h.getJSON("/console/api/pushes")
        let rows = try XCTUnwrap(page.json["pushes"] as? [[String: Any]])
        XCTAssertEqual(rows.map { $0["source"] as? String }, ["gateway", "relay"])
    }
}

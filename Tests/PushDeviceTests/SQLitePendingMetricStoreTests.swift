import Foundation
import PushDevice
import TestSupport
import XCTest

/// pushlab's improved App Group store: dedup by delivery id, counted cap, acknowledged removal.
final class SQLitePendingMetricStoreTests: XCTestCase {
    private var container: URL!

    override func setUp() { container = Fixtures.temporaryDirectory("sqlite-store") }
    override func tearDown() { try? FileManager.default.removeItem(at: container) }

    private func row(_ delivery: String, _ t: TimeInterval) -> PendingDeliveryMetric {
        PendingDeliveryMetric(deliveryID: delivery, deviceID: "tok", timestamp: Date(timeIntervalSince1970: t))
    }

    func testSecondRowForTheSameDeliveryIsDeduplicated() throws {
        let s = try SQLitePendingMetricStore(directory: container, cap: 10)
        XCTAssertEqual(try s.append(row("a", 1)), .stored(droppedOldest: 0))
        XCTAssertEqual(try s.append(row("a", 2)), .duplicate)
        XCTAssertEqual(try s.loadAll().count, 1)
    }

    func testCapDropsTheOldestAndCountsThem() throws {
        let s = try SQLitePendingMetricStore(directory: container, cap: 3)
        for n in 1...5 { _ = try s.append(row("d\(n)", Double(n))) }
        XCTAssertEqual(try s.loadAll().map(\.deliveryID), ["d3", "d4", "d5"])
        XCTAssertEqual(try s.droppedCount(), 2)
    }

    func testRowsSurviveReopeningAndLeaveOnlyWhenRemoved() throws {
        let first = try SQLitePendingMetricStore(directory: container, cap: 10)
        let r = row("x", 5)
        _ = try first.append(r)
        let second = try SQLitePendingMetricStore(directory: container, cap: 10)
        XCTAssertEqual(try second.loadAll(), [r])
        XCTAssertEqual(try second.remove(ids: [r.id]), 1)
        XCTAssertEqual(try first.loadAll(), [])
    }
}

import XCTest
import TestSupport
@testable import PushSend

final class SendHistoryStoreTests: XCTestCase {
    func testReportsAreRecordedAndReadNewestFirst() throws {
        let dir = Fixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let store = try SendHistoryStore(path: dir.appendingPathComponent("h/history.sqlite").path)
        let recorder = HistoryRecorder(store: store, endpoint: "https://localhost", batch: "b1", batchSize: 7)
        for i in 0..<50 {
            try recorder.record(DeliveryReport(provider: .apns, target: "tok\(i % 5)", id: "id\(i)", status: 200,
                                               outcome: .accepted, attempts: 1, latency: .milliseconds(3), sentAt: Date()))
        }
        try recorder.finish()
        XCTAssertEqual(try store.count(), 50)
        let last = try store.recent(limit: 3)
        XCTAssertEqual(last.map(\.messageID), ["id49", "id48", "id47"])
        let forToken = try store.recent(limit: 100, target: "tok2")
        XCTAssertEqual(forToken.count, 10)
        XCTAssertEqual(forToken.first?.batch, "b1")
        XCTAssertEqual(forToken.first?.latencyMs ?? 0, 3, accuracy: 0.001)
    }

    func testDefaultPathFollowsXDG() {
        XCTAssertEqual(SendHistoryStore.defaultPath(environment: ["XDG_DATA_HOME": "/d", "HOME": "/h"]), "/d/pushlab/history.sqlite")
        XCTAssertEqual(SendHistoryStore.defaultPath(environment: ["HOME": "/h"]), "/h/.local/share/pushlab/history.sqlite")
    }
}

import Foundation
@testable import PushGateway
import XCTest

/// The in-memory record store keeps the newest records, oldest first, whatever the batches.
final class NewestRecordsTests: XCTestCase {
    private func records(_ ids: ClosedRange<Int>) -> [RecordedPush] {
        ids.map { id in
            RecordedPush(
                record: PushRecord(receivedAt: Date(timeIntervalSince1970: Double(id)), service: .apns, token: nil, device: nil,
                                   topic: nil, pushType: nil, messageID: "m\(id)", status: 200, reason: nil, deliveryID: nil,
                                   headers: [:], payload: ""),
                rawHeaders: nil, body: nil)
        }
    }

    func testKeepsTheNewestInOrderAcrossBatchesAndWrapArounds() {
        var newest = NewestRecords(capacity: 3)
        for var r in records(1...2) { newest.insert(&r) }
        XCTAssertEqual(newest.newest(10).map(\.record.messageID), ["m1", "m2"])
        // What a full ring pushes out is handed back in place of the record inserted.
        var pushedOut: [String?] = []
        for var r in records(3...7) {
            let full = newest.newest(10).count == 3
            newest.insert(&r)
            if full { pushedOut.append(r.record.messageID) }
        }
        XCTAssertEqual(pushedOut, ["m1", "m2", "m3", "m4"])
        XCTAssertEqual(newest.newest(10).map(\.record.messageID), ["m5", "m6", "m7"])
        XCTAssertEqual(newest.newest(2).map(\.record.messageID), ["m6", "m7"])
        var eighth = records(8...8)[0]
        newest.insert(&eighth)
        XCTAssertEqual(eighth.record.messageID, "m5")
        XCTAssertEqual(newest.newest(3).map(\.record.messageID), ["m6", "m7", "m8"])
    }

    func testTheStoreAnswersRecentFromMemory() throws {
        let store = try PushRecordStore(path: nil)
        defer { store.close() }
        for r in records(1...5) { store.record(r.record) }
        XCTAssertEqual(try store.recent(limit: 2).map(\.messageID), ["m4", "m5"])
    }
}

import Foundation
@testable import PushGateway
import PushCore
import XCTest

/// `recent` must see every record made before it, even when the SQLite store's writer thread has
/// just taken the pending batch and not yet committed it (`flush` waits for that commit).
final class PushRecordStoreFlushRaceTests: XCTestCase {
    func testEveryRecordIsReadBackRightAfterItIsMadeWhileTheWriterRuns() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("record-race-\(UUID().uuidString).sqlite").path
        defer { for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let store = try PushRecordStore(path: path)
        defer { store.close() }
        var missed = 0, rounds = 0, n = 0
        let deadline = Date().addingTimeInterval(2)  // about 40 of the writer's 50 ms rounds
        while Date() < deadline {
            rounds += 1
            // A batch the writer takes takes it a few ms to commit; the pause gives the writer a
            // chance to take it between the last record and the read.
            for _ in 0..<300 {
                n += 1
                store.record(PushRecord(receivedAt: Date(), service: .apns, token: "t", device: nil, topic: "io.pushlab.demo",
                                        pushType: "alert", messageID: "m\(n)", status: 200, reason: nil, deliveryID: nil,
                                        headers: [:], payload: "{}"))
            }
            usleep(2_000)
            if try store.recent(limit: 1).first?.messageID != "m\(n)" { missed += 1 }
        }
        XCTAssertEqual(missed, 0, "in \(missed) of \(rounds) rounds the newest record was not read back right after it was made")
    }
}

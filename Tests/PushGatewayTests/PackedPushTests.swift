import Foundation
import PushCore
import PushHTTP
@testable import PushGateway
import XCTest

/// The record store keeps each push packed into one byte buffer (`PackedPush`); read back, a
/// record must be exactly what `RecordedPush.completed` builds from the same request.
final class PackedPushTests: XCTestCase {
    private func record(_ id: Int, token: String? = "ab", reason: String? = nil, uniqueID: String? = nil,
                        headers: [String: String] = [:], payload: String = "") -> PushRecord {
        PushRecord(receivedAt: Date(timeIntervalSince1970: 1_765_000_000.123 + Double(id)), service: id % 2 == 0 ? .apns : .fcm,
                   token: token, device: id % 3 == 0 ? nil : "phone-\(id)", topic: "io.pushlab.demo", pushType: "alert",
                   messageID: "m\(id)", status: reason == nil ? 200 : 400, reason: reason, deliveryID: id % 2 == 0 ? "d\(id)" : nil,
                   headers: headers, payload: payload, uniqueID: uniqueID)
    }

    func testARequestRecordReadsBackAsTheCompletedRecord() {
        // Mixed-case names (HTTP/1.1), a repeated field (the last one wins, as in the map), the
        // authorization value redacted whatever its case, a body longer than the 8 KiB kept,
        // non-ASCII bytes and an empty value.
        let headers = HTTPHeaders([HTTPHeader("Authorization", "bearer eyJhbGciOiJFUzI1NiJ9.secret"), HTTPHeader("APNs-Topic", "io.pushlab.demo"),
                                   HTTPHeader("x-note", "first"), HTTPHeader("x-note", "zweite – ü"), HTTPHeader("x-empty", "")])
        let body = Array(#"{"aps":{"alert":"ünïcode"}}"#.utf8) + [UInt8](repeating: UInt8(ascii: "x"), count: 9000)
        for r in [record(1), record(2, token: nil, reason: "BadDeviceToken", uniqueID: "u-2"), record(3, token: "")] {
            var packed = PackedPush()
            packed.pack(r, rawHeaders: headers, body: body)
            let expected = RecordedPush(record: r, rawHeaders: headers, body: body).completed
            XCTAssertEqual(packed.record, expected)
            XCTAssertEqual(packed.record.headers["authorization"], "bearer <redacted>")
            XCTAssertFalse(packed.bytes.contains(subsequence: Array("secret".utf8)), "the token never reaches the record")
            XCTAssertEqual(packed.record.payload.utf8.count, 8192)
        }
    }

    /// The authorization value is redacted for exactly the names the full path redacts: every
    /// byte value at every position of the 13-byte name, against `RecordedPush.completed`.
    func testOnlyAuthorizationInAnyCaseIsRedacted() {
        let name = Array("authorization".utf8)
        for position in name.indices {
            for value in 0...255 {
                var bytes = name
                bytes[position] = UInt8(value)
                guard let field = String(validating: bytes, as: UTF8.self) else { continue }
                let headers = HTTPHeaders([HTTPHeader(field, "bearer secret-\(position)-\(value)")])
                var packed = PackedPush()
                packed.pack(record(2), rawHeaders: headers, body: [])
                XCTAssertEqual(packed.record, RecordedPush(record: record(2), rawHeaders: headers, body: []).completed, field)
            }
        }
    }

    func testARecordWithoutTheRequestKeepsItsOwnHeadersAndPayload() {
        let r = record(4, headers: ["content-type": "application/json", "Authorization": "kept as given"], payload: #"{"a":"é"}"#)
        var packed = PackedPush()
        packed.pack(r, rawHeaders: nil, body: nil)
        XCTAssertEqual(packed.record, r)
    }

    func testRepackingABufferLeavesNothingOfTheLastRecord() {
        var packed = PackedPush()
        packed.pack(record(5, headers: ["x": String(repeating: "y", count: 500)], payload: String(repeating: "z", count: 900)),
                    rawHeaders: nil, body: nil)
        let small = record(6)
        packed.pack(small, rawHeaders: nil, body: nil)
        XCTAssertEqual(packed.record, small)
    }

    func testTheInMemoryStoreKeepsTheNewestAfterTheRingWrapsAround() throws {
        let store = try PushRecordStore(path: nil)
        defer { store.close() }
        let headers = HTTPHeaders([HTTPHeader("authorization", "bearer t"), HTTPHeader("apns-push-type", "alert")])
        for id in 1...10_003 {
            store.record(record(id), rawHeaders: headers, body: Array("{\"n\":\(id)}".utf8))
        }
        let newest = try store.recent(limit: 3)
        XCTAssertEqual(newest.map(\.messageID), ["m10001", "m10002", "m10003"])
        XCTAssertEqual(newest.map(\.payload), [#"{"n":10001}"#, #"{"n":10002}"#, #"{"n":10003}"#])
        XCTAssertEqual(newest.last?.headers, ["authorization": "bearer <redacted>", "apns-push-type": "alert"])
        XCTAssertEqual(try store.recent(limit: 20_000).count, 10_000)
    }

    /// The APNs route's ids arrive as inline text (`CanonicalUUIDText`), the record's strings
    /// nil: packed, they read back exactly as the same record with the ids as strings, in
    /// memory, through an observer and in SQLite.
    func testInlineIdsReadBackAsTheRecordWithTheirStrings() throws {
        let id = "9F4A4c1e-6b1d-4f1e-9a7e-0c1b2d3e4f50", unique = "0c1b2d3e-4f50-4a7e-8b1d-9f4a4c1e6b1d"
        let texts = (try XCTUnwrap(CanonicalUUIDText(id)), try XCTUnwrap(CanonicalUUIDText(unique)))
        var bare = record(10)
        bare.messageID = nil
        var expected = record(10, uniqueID: unique)
        expected.messageID = id
        let headers = HTTPHeaders([HTTPHeader("apns-id", id)])
        let completed = RecordedPush(record: expected, rawHeaders: headers, body: []).completed
        var packed = PackedPush()
        packed.pack(bare, rawHeaders: headers, body: [], ids: PackedPush.RecordIDs(messageID: texts.0, uniqueID: texts.1))
        XCTAssertEqual(packed.record, completed)
        packed.pack(bare, rawHeaders: headers, body: [], ids: PackedPush.RecordIDs(messageID: texts.0, uniqueID: nil))
        var noUnique = completed
        noUnique.uniqueID = nil
        XCTAssertEqual(packed.record, noUnique, "no unique id: nil, as before")

        let observer = SeenRecords()
        let memory = try PushRecordStore(path: nil, observer: observer)
        defer { memory.close() }
        memory.record(bare, rawHeaders: headers, body: [], messageID: texts.0, uniqueID: texts.1)
        XCTAssertEqual(try memory.recent(limit: 1), [completed])
        XCTAssertEqual(observer.records.map(\.completed), [completed])

        let path = FileManager.default.temporaryDirectory.appendingPathComponent("packed-push-\(UUID().uuidString).sqlite").path
        defer { for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let sqlite = try PushRecordStore(path: path)
        defer { sqlite.close() }
        sqlite.record(bare, rawHeaders: headers, body: [], messageID: texts.0, uniqueID: texts.1)
        XCTAssertEqual(try sqlite.recent(limit: 1).first?.messageID, id, "the SQLite table keeps the message id (not the unique id)")
    }

    /// The FCM route's message name arrives as the bytes of its answer, the record's string
    /// nil: packed, it reads back as the same record with the name as a string, in memory,
    /// through an observer and in SQLite; no name reads back as nil.
    func testAMessageNameGivenAsBytesReadsBackAsTheRecordWithItsString() throws {
        let name = "projects/é-π/messages/0:1767225600123456%abc"
        let answer = FCMSendRoute.answer(name: name)
        var bare = record(11)
        bare.messageID = nil
        var expected = record(11)
        expected.messageID = name
        let headers = HTTPHeaders([HTTPHeader("content-type", "application/json")])
        let completed = RecordedPush(record: expected, rawHeaders: headers, body: []).completed
        var packed = PackedPush()
        packed.pack(bare, rawHeaders: headers, body: [], ids: PackedPush.RecordIDs(messageName: FCMSendRoute.name(in: answer)))
        XCTAssertEqual(packed.record, completed)

        let observer = SeenRecords()
        let memory = try PushRecordStore(path: nil, observer: observer)
        defer { memory.close() }
        memory.record(bare, rawHeaders: headers, body: [], messageName: FCMSendRoute.name(in: answer))
        memory.record(bare, rawHeaders: headers, body: [], messageName: nil)
        var none = completed
        none.messageID = nil
        XCTAssertEqual(try memory.recent(limit: 2), [completed, none])
        XCTAssertEqual(observer.records.map(\.completed), [completed, none])

        let path = FileManager.default.temporaryDirectory.appendingPathComponent("packed-push-\(UUID().uuidString).sqlite").path
        defer { for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let sqlite = try PushRecordStore(path: path)
        defer { sqlite.close() }
        sqlite.record(bare, rawHeaders: headers, body: [], messageName: FCMSendRoute.name(in: answer))
        XCTAssertEqual(try sqlite.recent(limit: 1).first?.messageID, name)
    }

    func testTheSQLiteStoreWritesPackedRecords() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("packed-push-\(UUID().uuidString).sqlite").path
        defer { for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let store = try PushRecordStore(path: path)
        defer { store.close() }
        let headers = HTTPHeaders([HTTPHeader("Authorization", "bearer secret"), HTTPHeader("apns-topic", "io.pushlab.demo")])
        store.record(record(8), rawHeaders: headers, body: Array(#"{"aps":{}}"#.utf8))
        let read = try XCTUnwrap(try store.recent(limit: 1).first)
        XCTAssertEqual(read.messageID, "m8")
        XCTAssertEqual(read.deliveryID, "d8")
        XCTAssertEqual(read.headers, ["authorization": "bearer <redacted>", "apns-topic": "io.pushlab.demo"])
        XCTAssertEqual(read.payload, #"{"aps":{}}"#)
    }
}

private final class SeenRecords: PushRecordObserver, @unchecked Sendable {
    private let lock = NSLock()
    private var seen: [RecordedPush] = []
    func recorded(_ push: RecordedPush) { lock.withLock { seen.append(push) } }
    var records: [RecordedPush] { lock.withLock { seen } }
}

private extension Array where Element == UInt8 {
    func contains(subsequence: [UInt8]) -> Bool {
        guard subsequence.count <= count else { return false }
        return (0...(count - subsequence.count)).contains { Array(self[$0..<$0 + subsequence.count]) == subsequence }
    }
}

import Foundation
import PushCore
import PushHTTP
@testable import PushGateway
import XCTest

/// A record shares the last record's header fields only when its request has the same fields,
/// and the last record's payload only when its own packs to exactly those bytes; read back, a
/// record that shares is the record packed on its own.
final class SharedRequestPartTests: XCTestCase {
    private func record(_ id: Int) -> PushRecord {
        PushRecord(receivedAt: Date(timeIntervalSince1970: 1_765_000_000.5 + Double(id)), service: .apns, token: "ab\(id)",
                   device: nil, topic: "io.pushlab.demo", pushType: "alert", messageID: "m\(id)", status: 200, reason: nil,
                   deliveryID: nil, headers: [:], payload: "")
    }

    private let headers = HTTPHeaders([HTTPHeader("authorization", "bearer first.secret"), HTTPHeader("apns-topic", "io.pushlab.demo"),
                                       HTTPHeader("apns-push-type", "alert"), HTTPHeader("x-empty", "")])
    private let body = Array(#"{"aps":{"alert":"hi"}}"#.utf8)

    private func sharesBuffer(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        a.withUnsafeBufferPointer { x in b.withUnsafeBufferPointer { y in x.baseAddress == y.baseAddress } }
    }

    func testARequestSharesTheLastRecordsFieldsAndPayloadExactlyWhenTheyPackTheSame() {
        var previous = PackedPush()
        previous.pack(record(1), rawHeaders: headers, body: body)
        let long = [UInt8](repeating: UInt8(ascii: "x"), count: PackedPush.payloadPrefixBytes)
        var longPrevious = PackedPush()
        longPrevious.pack(record(1), rawHeaders: headers, body: long + [1])

        func fields(_ edit: (inout [HTTPHeader]) -> Void) -> HTTPHeaders {
            var list = Array(headers)
            edit(&list)
            return HTTPHeaders(list)
        }
        // (what, headers, body, the previous record, shares its fields, shares its payload)
        let cases: [(String, HTTPHeaders, [UInt8], PackedPush, Bool, Bool)] = [
            ("the same request", headers, body, previous, true, true),
            ("the same fields, another string's bytes", fields {
                $0[0] = HTTPHeader("authorization", String(decoding: Array("bearer first.secret".utf8), as: UTF8.self))
            }, body, previous, true, true),
            ("another provider token", fields { $0[0] = HTTPHeader("authorization", "bearer other") }, body, previous, false, true),
            ("a name in capitals", fields { $0[1] = HTTPHeader("APNs-Topic", "io.pushlab.demo") }, body, previous, false, true),
            ("the kept payload the same, the rest not", headers, long + [2], longPrevious, true, true),
            ("another value", fields { $0[1] = HTTPHeader("apns-topic", "io.pushlab.other") }, body, previous, false, true),
            ("a value one byte longer", fields { $0[2] = HTTPHeader("apns-push-type", "alerts") }, body, previous, false, true),
            ("a value's case", fields { $0[2] = HTTPHeader("apns-push-type", "Alert") }, body, previous, false, true),
            ("another name", fields { $0[3] = HTTPHeader("x-empty2", "") }, body, previous, false, true),
            ("a value where the empty one was", fields { $0[3] = HTTPHeader("x-empty", "v") }, body, previous, false, true),
            ("a field more", fields { $0.append(HTTPHeader("apns-priority", "10")) }, body, previous, false, true),
            ("a field less", fields { $0.removeLast() }, body, previous, false, true),
            ("two fields swapped", fields { $0.swapAt(1, 2) }, body, previous, false, true),
            ("the payload's last byte", headers, Array(body.dropLast()) + [UInt8(ascii: "]")], previous, true, false),
            ("a payload one byte shorter", headers, Array(body.dropLast()), previous, true, false),
            ("no payload", headers, [], previous, true, false),
            ("a kept payload that differs", headers, [UInt8(ascii: "y")] + long, longPrevious, true, false),
            ("both differ", fields { $0.removeFirst() }, Array(body.dropFirst()), previous, false, false),
        ]
        for (what, rawHeaders, payload, last, sharesFields, sharesPayload) in cases {
            var alone = PackedPush()
            alone.pack(record(2), rawHeaders: rawHeaders, body: payload)
            var packed = PackedPush()
            packed.pack(record(2), rawHeaders: rawHeaders, body: payload,
                        sharingFields: PackedPush.SharedFields(source: headers.fields, packed: last.fields), sharingPayload: last.payload)
            XCTAssertEqual(packed.record, alone.record, what)
            XCTAssertEqual(packed.bytes, alone.bytes, what)
            XCTAssertEqual(packed.record, RecordedPush(record: record(2), rawHeaders: rawHeaders, body: payload).completed, what)
            XCTAssertEqual(packed.sharesFields, sharesFields, what)
            XCTAssertEqual(sharesBuffer(packed.fields, last.fields), sharesFields, what)
            XCTAssertEqual(packed.sharesPayload, sharesPayload, what)
            XCTAssertEqual(sharesBuffer(packed.payload, last.payload), sharesPayload, what)
        }
    }

    /// A slot that shared a buffer and is packed again with another request gets its own buffer:
    /// the records still sharing the old one read back unchanged.
    func testRepackingASharingRecordLeavesTheOthersAlone() {
        var first = PackedPush()
        first.pack(record(1), rawHeaders: headers, body: body)
        var second = PackedPush()
        let shared = PackedPush.SharedFields(source: headers.fields, packed: first.fields)
        second.pack(record(2), rawHeaders: headers, body: body, sharingFields: shared, sharingPayload: first.payload)
        XCTAssertTrue(second.sharesFields && second.sharesPayload)
        let other = HTTPHeaders([HTTPHeader("apns-topic", "io.pushlab.other")])
        second.pack(record(3), rawHeaders: other, body: Array("{}".utf8), sharingFields: shared, sharingPayload: first.payload)
        XCTAssertFalse(second.sharesFields || second.sharesPayload)
        XCTAssertEqual(first.record, RecordedPush(record: record(1), rawHeaders: headers, body: body).completed)
        XCTAssertEqual(second.record, RecordedPush(record: record(3), rawHeaders: other, body: Array("{}".utf8)).completed)
    }

    /// The in-memory store through two laps of its ring, requests repeating in runs and
    /// changing between them: every record it keeps reads back as recorded.
    func testTheStoreKeepsEveryRecordAcrossRunsOfRepeatedRequests() throws {
        let store = try PushRecordStore(path: nil)
        defer { store.close() }
        func request(_ id: Int) -> (HTTPHeaders, [UInt8]) {
            // Runs of seven alike; between runs the payload changes (its length not), and every
            // third run the fields as well; every 11th push has a field more, and so has every
            // push of every other stretch of 500 (fields that change on every push).
            var list = [HTTPHeader("authorization", "bearer t\(id / 21 % 2)"), HTTPHeader("apns-topic", "io.pushlab.t\(id / 21 % 3)")]
            if id % 11 == 0 || id / 500 % 2 == 1 { list.append(HTTPHeader("apns-id", "id-\(id)")) }
            let fields = HTTPHeaders(list)
            return (fields, Array(#"{"run":\#(id / 7 % 10)}"#.utf8))
        }
        let total = 20_500
        for id in 1...total {
            let (fields, payload) = request(id)
            store.record(record(id), rawHeaders: fields, body: payload)
        }
        let kept = try store.recent(limit: 20_000)
        XCTAssertEqual(kept.count, 10_000)
        for (offset, read) in kept.enumerated() {
            let id = total - 10_000 + 1 + offset
            let (fields, payload) = request(id)
            XCTAssertEqual(read, RecordedPush(record: record(id), rawHeaders: fields, body: payload).completed, "record \(id)")
            if read != RecordedPush(record: record(id), rawHeaders: fields, body: payload).completed { break }
        }
    }
}

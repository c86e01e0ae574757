import Foundation
import PushHTTP
import TestSupport
import XCTest
@testable import PushGateway

/// `GET /admin/pushes?limit=N` takes a whole number in 1…10,000 (default 100) and answers any
/// other `limit` with 400 naming the field and the fix, in memory and with `--db`. Found by
/// Fuzz/FuzzServerRequests: `limit=-21` trapped the in-memory ring (and SQLite read a negative
/// LIMIT as "no limit"); its input is in Tests/Corpus/fuzz-regressions/FuzzServerRequests.
final class AdminPushesLimitTests: XCTestCase {
    private static let badLimits = ["-21", "0", "abc", "10001", "99999999999999999999999"]

    func testFuzzRegressionInputsForTheGoogleHostAreAnsweredWithoutAServerError() async throws {
        let harness = try GatewayHarness()
        let directory = Fixtures.path("Tests/Corpus/fuzz-regressions/FuzzServerRequests")
        var replayed = 0
        for file in try FileManager.default.contentsOfDirectory(atPath: directory).sorted() {
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: directory + "/" + file)))
            guard bytes.first.map({ $0 % 3 == 1 }) == true else { continue }  // Google-host inputs
            // FuzzRequest's text form: "METHOD target" on the first line.
            let line = String(decoding: bytes.dropFirst().prefix { $0 != UInt8(ascii: "\n") }, as: UTF8.self)
            let parts = line.split(separator: " ", maxSplits: 1).map(String.init)
            let response = try await get(harness.gateway.googleRouter, parts.count > 1 ? parts[1] : "/")
            XCTAssertTrue((200..<500).contains(response.status), "\(file): \(response.status)")
            replayed += 1
        }
        XCTAssertGreaterThan(replayed, 0)
        await harness.stop()
    }

    func testLimitOutsideOneToTenThousandIsRejectedWith400InMemory() async throws {
        try await checkLimits(recordsPath: nil)
    }

    func testLimitOutsideOneToTenThousandIsRejectedWith400WithDB() async throws {
        let dir = Fixtures.temporaryDirectory("admin-limit")
        defer { try? FileManager.default.removeItem(at: dir) }
        try await checkLimits(recordsPath: dir.appendingPathComponent("gateway.db").path)
    }

    func testRecentWithANonPositiveLimitIsEmptyInMemoryAndWithDB() throws {
        var ring = NewestRecords(capacity: 3)
        var one = RecordedPush(record: Self.record(1), rawHeaders: nil, body: nil)
        ring.insert(&one)
        XCTAssertEqual(ring.newest(0).count, 0)
        XCTAssertEqual(ring.newest(-21).count, 0)
        XCTAssertEqual(ring.newest(Int.min).count, 0)

        let dir = Fixtures.temporaryDirectory("admin-limit")
        defer { try? FileManager.default.removeItem(at: dir) }
        for path in [nil, dir.appendingPathComponent("gateway.db").path] {
            let store = try PushRecordStore(path: path)
            defer { store.close() }
            for id in 1...3 { store.record(Self.record(id)) }
            XCTAssertEqual(try store.recent(limit: 0).count, 0, path ?? "memory")
            XCTAssertEqual(try store.recent(limit: -21).count, 0, path ?? "memory")
            XCTAssertEqual(try store.recent(limit: 2).map(\.messageID), ["m2", "m3"], path ?? "memory")
        }
    }

    /// Three records, then every bad limit (400) and the good ones (200, that many records).
    private func checkLimits(recordsPath: String?) async throws {
        let harness = try GatewayHarness { $0.recordsPath = recordsPath }
        for id in 1...3 { harness.gateway.records.record(Self.record(id)) }
        let router = harness.gateway.googleRouter
        for limit in Self.badLimits {
            let response = try await get(router, "/admin/pushes?limit=" + limit)
            XCTAssertEqual(response.status, 400, limit)
            let body = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any] ?? [:]
            XCTAssertEqual(body["field"] as? String, "limit", limit)
            XCTAssertTrue((body["error"] as? String ?? "").contains("1…10000"), "\(body)")
            XCTAssertFalse((body["fix"] as? String ?? "").isEmpty, "\(body)")
        }
        for (query, count) in [("?limit=2", 2), ("?limit=1", 1), ("?limit=10000", 3), ("", 3), ("?limit=", 3)] {
            let response = try await get(router, "/admin/pushes" + query)
            XCTAssertEqual(response.status, 200, query)
            let body = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any] ?? [:]
            XCTAssertEqual((body["pushes"] as? [Any])?.count, count, query)
        }
        await harness.stop()
    }

    private static func record(_ id: Int) -> PushRecord {
        PushRecord(receivedAt: Date(timeIntervalSince1970: Double(id)), service: .apns, token: nil, device: nil, topic: nil,
                   pushType: nil, messageID: "m\(id)", status: 200, reason: nil, deliveryID: nil, headers: [:], payload: "")
    }

    /// Routes `GET target` as a loopback client would reach it, awaiting a `.later` answer.
    private func get(_ router: Router, _ target: String) async throws -> ServerResponse {
        var path = target, query: String?
        if let q = target.firstIndex(of: "?") {
            query = String(target[target.index(after: q)...])
            path = String(target[..<q])
        }
        let connection = ConnectionContext(id: 1, isTLS: false, remoteAddress: "127.0.0.1:40000", control: nil)
        guard case .found(let handler, let parameters) = router.match(method: "GET", path: path) else {
            XCTFail("GET \(path) was not routed to a handler")
            return ServerResponse(status: 0)
        }
        var request = ServerRequest(method: "GET", path: path, query: query, connection: connection)
        request.pathParameters = parameters
        guard let response = await (try handler(request)).response() else {
            XCTFail("GET \(target): the stream was reset")
            return ServerResponse(status: 0)
        }
        return response
    }
}

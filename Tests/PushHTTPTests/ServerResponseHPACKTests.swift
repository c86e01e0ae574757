import Foundation
import PushHTTP
import TestSupport
import XCTest

/// How the server's answers are HPACK-encoded (`HeaderBlock.flags`), read by an independent
/// peer (Python `h2`/`hpack` in `h2probe.py`): a long value that changes on every answer (APNs'
/// `apns-id`) is indexed the first time its name is sent on a connection, so the name enters the
/// dynamic table, and never indexed after that (the name is then referred to by index); short
/// values are indexed; every answer still carries exactly its own values.
final class ServerResponseHPACKTests: XCTestCase {
    func testALongChangingValueIsIndexedOnceThenSentNeverIndexedWithEveryValueIntact() throws {
        let counter = Counter()
        var router = Router()
        router.add("GET", "/id") { _ in
            let n = counter.next()
            var headers: HTTPHeaders = [:]
            headers.add("x-id", String(repeating: "\(n % 10)", count: 36))  // ≥ 32 bytes: long
            headers.add("x-kind", "short")
            return .now(ServerResponse(status: 200, headers: headers))
        }
        let server = try ServerTestFixture.start(router)
        addTeardownBlock { await server.stop() }  // stopped and awaited, also when the probe throws
        let run = try ServerTestFixture.h2probe(["sequence", "127.0.0.1", String(server.cleartextPort!), "/id", "4"])
        XCTAssertEqual(run.status, 0, run.stderr)
        let report = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any], run.stdout)
        let fields = try XCTUnwrap(report["fields"] as? [String: [String: String]], run.stdout)
        let neverIndexed = try XCTUnwrap(report["never_indexed"] as? [String: [String]], run.stdout)
        let ids = ["1", "3", "5", "7"].map { fields[$0]?["x-id"] }
        XCTAssertEqual(Set(ids.compactMap { $0 }).count, 4, "four answers with four different ids: \(run.stdout)")
        XCTAssertEqual(ids.compactMap { $0?.count }, [36, 36, 36, 36], run.stdout)
        XCTAssertEqual(["1", "3", "5", "7"].map { fields[$0]?["x-kind"] }, ["short", "short", "short", "short"], run.stdout)
        XCTAssertEqual(neverIndexed["1"], [], "the first x-id is indexed (its name enters the table): \(run.stdout)")
        XCTAssertEqual(["3", "5", "7"].map { neverIndexed[$0] }, [["x-id"], ["x-id"], ["x-id"]], run.stdout)
        // One x-id entry (the first answer's), however many answers followed; x-kind once too.
        XCTAssertEqual(report["dynamic_table_names"] as? [String], ["x-id", "x-kind"], run.stdout)
    }

    private final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var value = 0
        func next() -> Int { lock.withLock { value += 1; return value } }
    }
}

import Foundation
import Synchronization
import PushCore
import XCTest

/// The ids `RandomUUIDSource` makes (the sender's apns-id, the gateway's apns-id / apns-unique-id) are lowercase v4 UUIDs.
final class RandomUUIDSourceTests: XCTestCase {
    func testIdsAreDistinctLowercaseVersion4UUIDs() throws {
        let ids = RandomUUIDSource()
        let shape = try NSRegularExpression(pattern: "^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")
        var seen = Set<String>()
        var digits = Set<Character>()
        for _ in 0..<2000 {
            let id = ids.next()
            XCTAssertEqual(shape.numberOfMatches(in: id, range: NSRange(id.startIndex..., in: id)), 1, id)
            XCTAssertNotNil(UUID(uuidString: id), id)
            seen.insert(id)
            digits.formUnion(id.filter { $0 != "-" })
        }
        XCTAssertEqual(seen.count, 2000)
        XCTAssertEqual(digits.count, 16, "every hex digit appears: \(digits.sorted())")
    }

    /// The ids are written from a byte → two-digit table at fixed positions: each must read back
    /// as the same UUID (digits in the right places, dashes at 8, 13, 18, 23), and ids drawn
    /// from several threads at once (the event loops and senders share one source) never repeat.
    func testIdsFromSeveralThreadsAreDistinctAndReadBackAsTheSameUUID() throws {
        let ids = RandomUUIDSource()
        let threads = 4, perThread = 25_000
        let drawn = Mutex<[[String]]>([])
        DispatchQueue.concurrentPerform(iterations: threads) { _ in
            var mine: [String] = []
            mine.reserveCapacity(perThread)
            for _ in 0..<perThread { mine.append(ids.next()) }
            drawn.withLock { $0.append(mine) }
        }
        let all = drawn.withLock { $0 }.flatMap { $0 }
        XCTAssertEqual(all.count, threads * perThread)
        XCTAssertEqual(Set(all).count, all.count, "every id is distinct")
        for id in all.prefix(5_000) {
            let uuid = try XCTUnwrap(UUID(uuidString: id), id)
            XCTAssertEqual(uuid.uuidString.lowercased(), id)
            let bytes = withUnsafeBytes(of: uuid.uuid) { Array($0) }
            XCTAssertEqual(bytes[6] >> 4, 4, "version 4: \(id)")
            XCTAssertEqual(bytes[8] >> 6, 2, "RFC 4122 variant: \(id)")
        }
    }
}

import Foundation
@testable import PushGateway
import XCTest

/// `apns-id` / `apns-unique-id` values the gateway makes up are lowercase v4 UUIDs.
final class MessageIDsTests: XCTestCase {
    func testIdsAreDistinctLowercaseVersion4UUIDs() throws {
        let ids = MessageIDs()
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
}

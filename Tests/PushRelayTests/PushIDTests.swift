import Foundation
import PushRelay
import XCTest

/// A push id is a type of its own inside, and the same bare string on the wire.
final class PushIDTests: XCTestCase {
    private struct Holder: Codable, Equatable { var id: PushID }

    func testPushIDCodesAsTheBareString() throws {
        let json = try JSONEncoder().encode(Holder(id: PushID("p_01jc0000000000000000000000")))
        XCTAssertEqual(String(decoding: json, as: UTF8.self), #"{"id":"p_01jc0000000000000000000000"}"#)
        XCTAssertEqual(try JSONDecoder().decode(Holder.self, from: json), Holder(id: PushID("p_01jc0000000000000000000000")))
        XCTAssertEqual("\(PushID("p_x"))", "p_x", "interpolated, as in status_url and log lines")
    }

    /// Ids are time-ordered: sorting them sorts by acceptance, as the strings did.
    func testPushIDsSortAsTheirStrings() {
        let raw = ["p_01jc2", "p_01jc0", "p_01jc1"]
        XCTAssertEqual(raw.map(PushID.init(rawValue:)).sorted().map(\.rawValue), raw.sorted())
    }
}

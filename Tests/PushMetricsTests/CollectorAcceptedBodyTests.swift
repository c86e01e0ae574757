@testable import PushMetrics
import XCTest

/// The 200 body is written byte by byte (no string building per request): it must stay the
/// JSON the SDKs and docs/metrics.md expect, for numbers of every width.
final class CollectorAcceptedBodyTests: XCTestCase {
    func testAcceptedBodyIsTheDocumentedJSON() throws {
        for (stored, duplicates, ignored) in [(0, 0, 0), (1, 0, 2), (1, 1, 0), (20, 13, 105), (9, 10, 99), (1000, 999, 1001)] {
            let body = MetricsCollector.acceptedBody(stored: stored, duplicates: duplicates, ignored: ignored)
            XCTAssertEqual(String(decoding: body, as: UTF8.self),
                           #"{"success":true,"stored":\#(stored),"duplicates":\#(duplicates),"ignored":\#(ignored)}"#)
            let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])
            XCTAssertEqual(json["stored"] as? Int, stored)
        }
    }
}

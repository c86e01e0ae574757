import Foundation
import PushCore
import XCTest

/// The CDP timestamps the SDKs send (docs/specs/device-side.md §4: ISO 8601, recovered rows with
/// milliseconds) parse to the right instant; anything else is refused.
final class ISO8601TimestampTests: XCTestCase {
    func testWholeSecondsMillisecondsAndOffsets() {
        XCTAssertEqual(ISO8601Timestamp.parse("2026-04-02T10:46:08Z")?.timeIntervalSince1970, 1_775_126_768)
        XCTAssertEqual(ISO8601Timestamp.parse("2026-04-02T10:46:08.123Z")!.timeIntervalSince1970, 1_775_126_768.123, accuracy: 1e-6)
        XCTAssertEqual(ISO8601Timestamp.parse("2026-04-02T12:46:08+02:00")?.timeIntervalSince1970, 1_775_126_768)
        XCTAssertEqual(ISO8601Timestamp.parse("2026-04-02T05:46:08.5-05:00")!.timeIntervalSince1970, 1_775_126_768.5, accuracy: 1e-6)
        XCTAssertEqual(ISO8601Timestamp.parse("1970-01-01T00:00:00Z")?.timeIntervalSince1970, 0)
        XCTAssertEqual(ISO8601Timestamp.parse("2024-02-29T00:00:00Z")?.timeIntervalSince1970, 1_709_164_800)
    }

    func testMalformedTextIsRefused() {
        for text in ["", "2026-04-02", "2026-04-02 10:46:08Z", "2026-04-02T10:46:08", "2026-13-02T10:46:08Z",
                     "2026-04-02T25:46:08Z", "2026-04-02T10:46:08.Z", "2026-04-02T10:46:08Zjunk", "yesterday"] {
            XCTAssertNil(ISO8601Timestamp.parse(text), text)
        }
    }

    func testFormatRoundTripsWithMilliseconds() {
        let date = Date(timeIntervalSince1970: 1_775_126_768.123)
        XCTAssertEqual(ISO8601Timestamp.format(date), "2026-04-02T10:46:08.123Z")
        XCTAssertEqual(ISO8601Timestamp.parse(ISO8601Timestamp.format(date))!.timeIntervalSince1970, 1_775_126_768.123, accuracy: 1e-6)
        XCTAssertEqual(ISO8601Timestamp.format(Date(timeIntervalSince1970: 0)), "1970-01-01T00:00:00.000Z")
    }

    /// What ISO8601DateFormatter writes (RFC 3339, UTC, milliseconds), for times from 1900 to 9999.
    func testFormatWritesWhatTheFoundationFormatterWrites() {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        var generator = SystemRandomNumberGenerator()
        let fixed: [Double] = [0, -0.001, -86_400, 951_782_400.5, 4_107_542_400.123, 1_764_597_258.669, 253_402_300_799.999, -2_208_988_800]
        let random = (0..<2_000).map { _ in Double(Int64.random(in: -2_208_988_800_000...253_402_300_799_999, using: &generator)) / 1000 }
        for seconds in fixed + random {
            let date = Date(timeIntervalSince1970: seconds)
            XCTAssertEqual(ISO8601Timestamp.format(date), formatter.string(from: date), "\(seconds)")
        }
    }
}

import Foundation
import PushHTTP
import XCTest

/// `HTTPDate.string` writes IMF-fixdate by hand (RFC 9110 §5.6.7); its text must be exactly what
/// the `DateFormatter` it replaced writes, and `parse` must read it back.
final class HTTPDateTests: XCTestCase {
    private let reference: DateFormatter = {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "GMT")
        f.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return f
    }()

    func testTheRFCExample() {
        XCTAssertEqual(HTTPDate.string(Date(timeIntervalSince1970: 784_111_777)), "Sun, 06 Nov 1994 08:49:37 GMT")
    }

    func testEqualsDateFormatterFrom1970ToYear9999AndBeyond() {
        var dates: [Double] = [0, 0.999, 59.5, 0.9995, 1_124_784_317.9999986, 1_205_126_054.9999871, 951_782_400, 951_868_799.9, 4_107_542_399, 253_402_300_799.75, 253_402_300_800, 253_402_387_200]
        var t = 0.0
        while t < 253_402_300_800 {  // every ~93 days with a changing time of day, 1970 to 9999
            dates.append(t)
            t += 8_034_173.37
        }
        for seconds in dates {
            let date = Date(timeIntervalSince1970: seconds)
            XCTAssertEqual(HTTPDate.string(date), reference.string(from: date), "\(seconds)")
        }
        let now = Date()
        XCTAssertEqual(HTTPDate.parse(HTTPDate.string(now)), Date(timeIntervalSince1970: now.timeIntervalSince1970.rounded(.down)))
    }

    func testDatesBefore1970GoThroughDateFormatter() {
        for seconds in [-1.0, -86_400.5, -2_208_988_800] {
            let date = Date(timeIntervalSince1970: seconds)
            XCTAssertEqual(HTTPDate.string(date), reference.string(from: date), "\(seconds)")
        }
    }
}

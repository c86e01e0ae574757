import PushHTTP
import XCTest

/// `HTTPHeader.hasName` (`HTTPHeaders.namesMatch`): ASCII case-insensitive equality of field
/// names, settled by the byte counts first. Every pair of names from a list of lengths 0–17,
/// in several spellings, against a lowercased comparison.
final class HTTPHeaderNameMatchTests: XCTestCase {
    func testNamesMatchExactlyWhenTheirLowercaseFormsAreEqual() {
        let names = ["", "a", "A", "b", "ab", "host", "Host", "HOST", "hosT", "hosu", "post", "hos", "hostx",
                     "apns-id", "APNS-ID", "apns-ie", "user-agent", "User-Agent", "apns-topic", "APNS-Topic",
                     "authorization", "Authorization", "authorizatioN", "apns-priority", "content-length",
                     "Content-Length", "apns-push-type", "apns-expiration", "apns-collapse-id", "proxy-connection",
                     "transfer-encoding", "@", "`", "[", "{"]
        for a in names {
            for b in names {
                XCTAssertEqual(HTTPHeader(a, "v").hasName(b), a.lowercased() == b.lowercased(), "\(a) against \(b)")
                var headers = HTTPHeaders()
                headers.add(a, "value of \(a)")
                XCTAssertEqual(headers[b], a.lowercased() == b.lowercased() ? "value of \(a)" : nil, "\(a) looked up as \(b)")
            }
        }
    }
}

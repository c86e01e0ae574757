@testable import PushHTTP
import XCTest

/// Which request follows a redirect (RFC 9110 §15.4): pure logic, no network.
final class ClientRedirectPolicyTests: XCTestCase {
    private func redirect(_ status: Int, to location: String) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["location": location])
    }

    func testRelativeLocationResolvesAgainstTheRequestURL() {
        let request = HTTPRequest(url: "https://a.test:8443/v1/x?q=1", maxRedirects: 1)
        XCTAssertEqual(RedirectPolicy.nextRequest(after: redirect(302, to: "y"), for: request)?.url, "https://a.test:8443/v1/y")
        XCTAssertEqual(RedirectPolicy.nextRequest(after: redirect(301, to: "/z"), for: request)?.url, "https://a.test:8443/z")
    }

    func testCredentialsAreDroppedWhenTheOriginChanges() {
        let request = HTTPRequest(url: "https://a.test/x", headers: ["authorization": "bearer secret", "x-keep": "1"],
                                  maxRedirects: 1)
        let sameOrigin = RedirectPolicy.nextRequest(after: redirect(307, to: "/y"), for: request)
        XCTAssertEqual(sameOrigin?.headers["authorization"], "bearer secret")
        let otherHost = RedirectPolicy.nextRequest(after: redirect(307, to: "https://b.test/y"), for: request)
        XCTAssertNil(otherHost?.headers["authorization"])
        XCTAssertEqual(otherHost?.headers["x-keep"], "1")
        let otherScheme = RedirectPolicy.nextRequest(after: redirect(307, to: "http://a.test/y"), for: request)
        XCTAssertNil(otherScheme?.headers["authorization"])
    }

    func testMethodRewriting() {
        let post = HTTPRequest(method: "POST", url: "https://a.test/x", headers: ["content-type": "text/plain"],
                               body: [1, 2], maxRedirects: 1)
        for status in [301, 302, 303] {
            let next = RedirectPolicy.nextRequest(after: redirect(status, to: "/y"), for: post)
            XCTAssertEqual(next?.method, "GET", "\(status)")
            XCTAssertEqual(next?.body, [], "\(status)")
            XCTAssertNil(next?.headers["content-type"], "\(status)")
        }
        for status in [307, 308] {
            let next = RedirectPolicy.nextRequest(after: redirect(status, to: "/y"), for: post)
            XCTAssertEqual(next?.method, "POST", "\(status)")
            XCTAssertEqual(next?.body, [1, 2], "\(status)")
        }
        let put = HTTPRequest(method: "PUT", url: "https://a.test/x", body: [1], maxRedirects: 1)
        XCTAssertEqual(RedirectPolicy.nextRequest(after: redirect(302, to: "/y"), for: put)?.method, "PUT")
    }

    func testNoRedirectWithoutPermissionOrLocation() {
        let request = HTTPRequest(url: "https://a.test/x")
        XCTAssertNil(RedirectPolicy.nextRequest(after: redirect(302, to: "/y"), for: request), "maxRedirects 0")
        var allowed = request
        allowed.maxRedirects = 3
        XCTAssertNil(RedirectPolicy.nextRequest(after: HTTPResponse(status: 302), for: allowed), "no Location")
        XCTAssertNil(RedirectPolicy.nextRequest(after: redirect(304, to: "/y"), for: allowed), "304 is not a redirect")
        XCTAssertNil(RedirectPolicy.nextRequest(after: redirect(200, to: "/y"), for: allowed))
    }

    func testWarmupGateOriginKeys() {
        XCTAssertEqual(ConnectionWarmupGate.parseOrigin("HTTPS://Example.COM:443/a?b", includeCleartext: false), "https://example.com:443")
        XCTAssertNil(ConnectionWarmupGate.parseOrigin("http://example.com/a", includeCleartext: false))
        XCTAssertEqual(ConnectionWarmupGate.parseOrigin("http://127.0.0.1:80", includeCleartext: true), "http://127.0.0.1:80")
        XCTAssertNil(ConnectionWarmupGate.parseOrigin("ftp://x/y", includeCleartext: true))
    }

    func testDurationsRoundUpToWholeMilliseconds() {
        XCTAssertEqual(Duration.nanoseconds(1).roundedUpMilliseconds, 1)
        XCTAssertEqual(Duration.milliseconds(250).roundedUpMilliseconds, 250)
        XCTAssertEqual(Duration.seconds(2).roundedUpMilliseconds, 2000)
        XCTAssertEqual(Duration.zero.roundedUpMilliseconds, 0)
    }
}

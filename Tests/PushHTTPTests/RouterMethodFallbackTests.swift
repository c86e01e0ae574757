import PushHTTP
import XCTest

/// `methodNotAllowedFallback` answers a known path under an unknown method, with the path's
/// parameters bound; without it the router reports `.methodNotAllowed`.
final class RouterMethodFallbackTests: XCTestCase {
    private let connection = ConnectionContext(id: 1, isTLS: false, remoteAddress: "test", control: nil)

    func testFallbackGetsTheRequestWithParameters() throws {
        var router = Router()
        router.add("POST", "/3/device/{token}") { _ in .now(.text(200, "ok")) }
        router.methodNotAllowedFallback = { request in .now(.text(405, "fallback " + (request.pathParameters["token"] ?? "-"))) }
        guard case .found(let handler, let parameters) = router.match(method: "BREW", path: "/3/device/abc") else {
            return XCTFail("BREW was not routed to the fallback")
        }
        var request = ServerRequest(method: "BREW", path: "/3/device/abc", connection: connection)
        request.pathParameters = parameters
        guard case .now(let response) = try handler(request) else { return XCTFail("no immediate answer") }
        XCTAssertEqual(String(decoding: response.body, as: UTF8.self), "fallback abc")
        guard case .found = router.match(method: "POST", path: "/3/device/abc") else { return XCTFail("POST lost its route") }
    }

    func testWithoutFallbackTheRouterReportsTheAllowedMethods() {
        var router = Router()
        router.add("POST", "/3/device/{token}") { _ in .now(.text(200, "ok")) }
        guard case .methodNotAllowed(let allowed) = router.match(method: "BREW", path: "/3/device/abc") else {
            return XCTFail("expected methodNotAllowed")
        }
        XCTAssertEqual(allowed, ["POST"])
    }
}

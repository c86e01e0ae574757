import XCTest
@testable import PushHTTP

final class RouterTests: XCTestCase {
    private func handler(_ tag: String) -> RouteHandler { { _ in .now(.text(200, tag)) } }

    private func tag(_ match: Router.Match) throws -> String? {
        guard case .found(let h, _) = match else { return nil }
        let ctx = ConnectionContext(id: 1, isTLS: false, remoteAddress: "test", control: nil)
        guard case .now(let r) = try h(ServerRequest(method: "GET", path: "/", connection: ctx)) else { return nil }
        return String(decoding: r.body, as: UTF8.self)
    }

    func testParameterSegmentsBindValues() throws {
        var router = Router()
        router.add("POST", "/v1/projects/{project}/messages:send", handler("send"))
        guard case .found(_, let params) = router.match(method: "POST", path: "/v1/projects/demo/messages:send") else {
            return XCTFail("no match")
        }
        XCTAssertEqual(params, ["project": "demo"])
    }

    func testLiteralRouteWinsOverParameter() throws {
        var router = Router()
        router.add("GET", "/admin/{thing}", handler("param"))
        router.add("GET", "/admin/pushes", handler("literal"))
        XCTAssertEqual(try tag(router.match(method: "GET", path: "/admin/pushes")), "literal")
        XCTAssertEqual(try tag(router.match(method: "GET", path: "/admin/devices")), "param")
    }

    func testWrongMethodIsMethodNotAllowed() {
        var router = Router()
        router.add("POST", "/3/device/{token}", handler("apns"))
        guard case .methodNotAllowed(let allowed) = router.match(method: "GET", path: "/3/device/abc") else {
            return XCTFail("expected 405")
        }
        XCTAssertEqual(allowed, ["POST"])
    }

    func testEmptyParameterSegmentDoesNotMatch() {
        var router = Router()
        router.add("POST", "/3/device/{token}", handler("apns"))
        guard case .notFound = router.match(method: "POST", path: "/3/device/") else { return XCTFail("matched empty token") }
        guard case .notFound = router.match(method: "POST", path: "/3/device/a/b") else { return XCTFail("matched extra segment") }
    }
}

final class RouterFallbackTests: XCTestCase {
    func testFallbackAnswersUnmatchedPathsButNotWrongMethods() throws {
        var router = Router()
        router.add("POST", "/3/device/{token}") { _ in .now(.text(200, "apns")) }
        router.fallback = { _ in .now(.text(404, "fallback")) }
        guard case .found = router.match(method: "GET", path: "/nope") else { return XCTFail("fallback not used") }
        guard case .methodNotAllowed = router.match(method: "GET", path: "/3/device/abc") else { return XCTFail("405 lost") }
    }
}

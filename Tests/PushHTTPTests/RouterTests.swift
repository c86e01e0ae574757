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

    /// Literal routes are looked up only for paths of a length some literal route has (lengths
    /// from 63 bytes on share one bit): long and short literals still win over parameters.
    func testLiteralRoutesOfEveryLengthWinOverParameters() throws {
        var router = Router()
        let long = "/" + String(repeating: "l", count: 80), longer = "/" + String(repeating: "l", count: 90)
        router.add("GET", "/{a}", handler("param"))
        router.add("GET", long, handler("long"))
        router.add("GET", "/s", handler("short"))
        XCTAssertEqual(try tag(router.match(method: "GET", path: long)), "long")
        XCTAssertEqual(try tag(router.match(method: "GET", path: longer)), "param")
        XCTAssertEqual(try tag(router.match(method: "GET", path: "/s")), "short")
        XCTAssertEqual(try tag(router.match(method: "GET", path: "/t")), "param")
        XCTAssertEqual(try tag(router.match(method: "GET", path: "/" + String(repeating: "x", count: 40))), "param")
    }

    /// Fewer parameters win; among routes with as many, the one added first.
    func testRoutesAreTriedByParameterCountThenInTheOrderAdded() throws {
        var router = Router()
        router.add("GET", "/{a}/{b}", handler("two"))
        router.add("GET", "/x/{b}", handler("one-first"))
        router.add("GET", "/{a}/y", handler("one-second"))
        router.add("GET", "/x/y", handler("literal"))
        router.add("GET", "/{a}/{b}/{c}", handler("three"))
        XCTAssertEqual(try tag(router.match(method: "GET", path: "/x/y")), "literal")
        XCTAssertEqual(try tag(router.match(method: "GET", path: "/x/z")), "one-first")
        XCTAssertEqual(try tag(router.match(method: "GET", path: "/z/y")), "one-second")
        XCTAssertEqual(try tag(router.match(method: "GET", path: "/z/z")), "two")
        XCTAssertEqual(try tag(router.match(method: "GET", path: "/z/z/z")), "three")
    }

    func testWrongMethodIsMethodNotAllowed() {
        var router = Router()
        router.add("POST", "/3/device/{token}", handler("apns"))
        guard case .methodNotAllowed(let allowed) = router.match(method: "GET", path: "/3/device/abc") else {
            return XCTFail("expected 405")
        }
        XCTAssertEqual(allowed, ["POST"])
    }

    /// Parameter routes are kept per method: a route of another method never matches, a route
    /// that fails after its parameter leaves nothing bound, and a path without a leading `/`
    /// (HTTP/1.1's `*` or a malformed target) is matched as before, literals included.
    func testParameterRoutesAreTriedPerMethodAndBindOnlyTheMatch() throws {
        var router = Router()
        router.add("POST", "/a/{x}/b", handler("post-b"))
        router.add("GET", "/a/{x}/c", handler("get-c"))
        router.add("POST", "/a/{y}/c", handler("post-c"))
        router.add("POST", "/lit", handler("literal"))
        guard case .found(let post, let postParams) = router.match(method: "POST", path: "/a/1/c") else { return XCTFail("no POST match") }
        XCTAssertEqual(try tag(.found(post, postParams)), "post-c")
        XCTAssertEqual(postParams, ["y": "1"])
        guard case .found(let get, let getParams) = router.match(method: "GET", path: "/a/2/c") else { return XCTFail("no GET match") }
        XCTAssertEqual(try tag(.found(get, getParams)), "get-c")
        XCTAssertEqual(getParams, ["x": "2"])
        XCTAssertEqual(try tag(router.match(method: "POST", path: "/a/3/b")), "post-b")
        guard case .notFound = router.match(method: "POST", path: "/a/1/d") else { return XCTFail("matched /a/1/d") }
        guard case .methodNotAllowed(let allowed) = router.match(method: "PUT", path: "/a/1/b") else { return XCTFail("PUT has no routes") }
        XCTAssertEqual(allowed, ["POST"])
        XCTAssertEqual(try tag(router.match(method: "POST", path: "x/lit")), "literal", "a path without a leading / binds after its first /")
        XCTAssertEqual(try tag(router.match(method: "POST", path: "x/a/4/c")), "post-c")
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

/// RFC 9110 §9.3.2: HEAD is answered by the GET route unless a HEAD route exists.
final class RouterHeadTests: XCTestCase {
    func testHeadUsesTheGetRouteUnlessItHasItsOwn() throws {
        var router = Router()
        router.add("GET", "/health") { _ in .now(.text(200, "get")) }
        router.add("GET", "/items/{id}") { request in .now(.text(200, request.pathParameters["id"] ?? "")) }
        router.add("HEAD", "/own") { _ in .now(.text(204, "")) }
        router.add("GET", "/own") { _ in .now(.text(200, "get")) }
        router.add("POST", "/only-post") { _ in .now(.text(200, "post")) }
        guard case .found(_, let params) = router.match(method: "HEAD", path: "/items/7") else { return XCTFail("no HEAD via GET") }
        XCTAssertEqual(params, ["id": "7"])
        guard case .found = router.match(method: "HEAD", path: "/health") else { return XCTFail("no HEAD via GET") }
        let ctx = ConnectionContext(id: 1, isTLS: false, remoteAddress: "test", control: nil)
        guard case .found(let own, _) = router.match(method: "HEAD", path: "/own"),
              case .now(let response) = try own(ServerRequest(method: "HEAD", path: "/own", connection: ctx)) else {
            return XCTFail("HEAD route not found")
        }
        XCTAssertEqual(response.status, 204)
        guard case .methodNotAllowed(let allowed) = router.match(method: "HEAD", path: "/only-post") else {
            return XCTFail("HEAD on a POST-only path must be 405")
        }
        XCTAssertEqual(allowed, ["POST"])
    }
}

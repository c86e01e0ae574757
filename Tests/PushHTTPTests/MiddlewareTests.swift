import Synchronization
import XCTest
@testable import PushHTTP

/// The middleware chain (Sources/PushHTTP/Server/Middleware): order, short-circuit, context
/// handed down, `.later` replies seen by the outer middleware, and a left-out middleware.
final class MiddlewareTests: XCTestCase {
    private struct Trail: RouteContext {
        var names: [String] = []
        init() {}
    }

    /// Adds its name to the context on the way in and to the answer's `trail` header on the way out.
    private struct Tag: Middleware, AsyncMiddleware {
        let name: String

        func handle(_ request: ServerRequest, context: Trail, next: @escaping Responder<Trail>) throws -> HandlerReply {
            var context = context
            context.names.append(name)
            guard case .now(var response) = try next(request, context) else { return .now(.text(500, "not now")) }
            response.headers.add("trail", name)
            return .now(response)
        }

        func handle(_ request: ServerRequest, context: Trail, next: @escaping AsyncResponder<Trail>) async throws -> ServerResponse {
            var context = context
            context.names.append(name)
            var response = try await next(request, context)
            response.headers.add("trail", name)
            return response
        }
    }

    /// Answers 403 without calling the route when the request has no `x-pass` header.
    private struct Gate: Middleware {
        func handle(_ request: ServerRequest, context: Trail, next: @escaping Responder<Trail>) throws -> HandlerReply {
            guard request.headers["x-pass"] != nil else { return .now(.text(403, "gate")) }
            return try next(request, context)
        }
    }

    private func request(_ path: String = "/r", headers: HTTPHeaders = [:]) -> ServerRequest {
        ServerRequest(method: "GET", path: path, headers: headers,
                      connection: ConnectionContext(id: 1, isTLS: false, remoteAddress: "127.0.0.1", control: nil))
    }

    private func reply(_ router: Router, _ request: ServerRequest) async throws -> ServerResponse {
        guard case .found(let handler, _) = router.match(method: request.method, path: request.path) else {
            XCTFail("no route for \(request.path)")
            return ServerResponse(status: 0)
        }
        return try await handler(request).response() ?? ServerResponse(status: -1)
    }

    func testOuterMiddlewareSeesTheRequestFirstAndTheAnswerLast() async throws {
        var router = Router()
        router.add("GET", "/r", through: Tag(name: "outer").followed(by: Tag(name: "inner"))) { _, context in
            .now(.text(200, context.names.joined(separator: ",")))
        }
        let response = try await reply(router, request())
        XCTAssertEqual(String(decoding: response.body, as: UTF8.self), "outer,inner")
        XCTAssertEqual(response.headers.values(for: "trail"), ["inner", "outer"])
    }

    func testMiddlewareAnswersWithoutCallingTheRoute() async throws {
        let called = Mutex(0)
        var router = Router()
        router.add("GET", "/r", through: Tag(name: "log").followed(by: Gate())) { _, _ in
            called.withLock { $0 += 1 }
            return .now(.text(200, "route"))
        }
        let refused = try await reply(router, request())
        XCTAssertEqual(refused.status, 403)
        XCTAssertEqual(refused.headers.values(for: "trail"), ["log"], "the outer middleware still sees the refusal")
        XCTAssertEqual(called.withLock { $0 }, 0)
        let passed = try await reply(router, request(headers: ["x-pass": "1"]))
        XCTAssertEqual(passed.status, 200)
        XCTAssertEqual(called.withLock { $0 }, 1)
    }

    func testAsyncChainRunsLaterInOrderAndThrownErrorsAnswer500() async throws {
        struct Refuse: Error {}
        var router = Router()
        router.add("GET", "/r", through: Tag(name: "a").followed(by: Tag(name: "b"))) { _, context in
            .text(200, context.names.joined(separator: ","))
        }
        router.add("GET", "/throws", through: Tag(name: "a")) { _, _ async throws -> ServerResponse in throw Refuse() }
        guard case .found(let handler, _) = router.match(method: "GET", path: "/r"), case .later = try handler(request()) else {
            return XCTFail("an async chain answers later")
        }
        let response = try await reply(router, request())
        XCTAssertEqual(String(decoding: response.body, as: UTF8.self), "a,b")
        XCTAssertEqual(response.headers.values(for: "trail"), ["b", "a"])
        let thrown = try await reply(router, request("/throws"))
        XCTAssertEqual(thrown.status, 500)
    }

    func testLeftOutMiddlewarePassesTheRouteItself() async throws {
        let none: Tag? = nil
        var router = Router()
        router.add("GET", "/r", through: none.followed(by: Tag(name: "only"))) { _, context in .now(.text(200, context.names.joined(separator: ","))) }
        let response = try await reply(router, request())
        XCTAssertEqual(String(decoding: response.body, as: UTF8.self), "only")
    }

    func testAccessLogWritesOneLinePerAnswerWithoutTheQuery() async throws {
        let lines = Mutex<[String]>([])
        var router = Router()
        let log = AccessLog<Trail> { line in lines.withLock { $0.append(line) } }
        router.add("GET", "/now", through: log) { _, _ in .now(.text(201, "")) }
        router.add("GET", "/later", through: log) { _, _ in .later { .text(202, "") } }
        router.add("GET", "/async", through: log) { _, _ in .text(203, "") }
        router.add("GET", "/callback", through: log) { _, _ in .callback { respond in respond(.text(204, "")) } }
        router.add("GET", "/reset", through: log) { _, _ in .resetStream(errorCode: .refusedStream) }
        var withQuery = request("/now")
        withQuery.query = "token=secret"
        _ = try await reply(router, withQuery)
        _ = try await reply(router, request("/later"))
        _ = try await reply(router, request("/async"))
        let answered = try await reply(router, request("/callback"))
        XCTAssertEqual(answered.status, 204)
        let reset = try await reply(router, request("/reset"))
        XCTAssertEqual(reset.status, -1, "a reset has no response")
        let written = lines.withLock { $0 }
        guard written.count == 5 else { return XCTFail("one line per answer, got \(written)") }
        XCTAssertTrue(written[0].hasPrefix("GET /now 201 "), written[0])
        XCTAssertTrue(written[1].hasPrefix("GET /later 202 "), written[1])
        XCTAssertTrue(written[2].hasPrefix("GET /async 203 "), written[2])
        XCTAssertTrue(written[3].hasPrefix("GET /callback 204 "), written[3])
        XCTAssertTrue(written[4].hasPrefix("GET /reset reset(7) "), written[4])
        XCTAssertFalse(written.joined().contains("secret"))
        // The log keeps each reply's kind: a callback is not turned into a task.
        guard case .found(let handler, _) = router.match(method: "GET", path: "/callback"), case .callback = try handler(request("/callback")) else {
            return XCTFail("the access log must answer a callback reply with a callback")
        }
    }
}

import Foundation
import PushHTTP
import TestSupport
import XCTest

/// How route handlers are run and answered, on HTTP/2 and HTTP/1.1 alike.
final class ServerHandlerTests: XCTestCase {
    private struct Boom: Error {}

    private var server: HTTPServer!

    override func setUp() async throws {
        var router = ServerTestFixture.standardRouter()
        router.add("GET", "/throws") { _ in throw Boom() }
        router.add("GET", "/later/{name}") { request in
            let name = request.pathParameters["name"] ?? ""
            return .later {
                try? await Task.sleep(for: .milliseconds(50))
                return .text(202, "later \(name)")
            }
        }
        router.add("GET", "/reset") { _ in .resetStream(errorCode: .internalError) }
        router.add("GET", "/query") { request in .now(.text(200, request.query ?? "none")) }
        server = try ServerTestFixture.start(router)
    }

    override func tearDown() async throws {
        await server.stop()
    }

    private var bases: [(String, [String], String)] {
        [("h2", ["--http2"], "https://localhost:\(server.tlsPort!)"),
         ("h2c", ["--http2-prior-knowledge"], "http://127.0.0.1:\(server.cleartextPort!)"),
         ("HTTP/1.1", ["--http1.1"], "http://127.0.0.1:\(server.cleartextPort!)")]
    }

    func testThrowingHandlerBecomes500AndTheServerLivesOn() throws {
        for (name, flags, base) in bases {
            let failed = try ServerTestFixture.curl(flags + ["\(base)/throws"])
            XCTAssertEqual(failed.status, 500, name)
            let next = try ServerTestFixture.curl(flags + ["\(base)/health"])
            XCTAssertEqual(next.status, 200, name)
        }
    }

    func testLaterHandlerAnswersFromTheConcurrencyPool() throws {
        for (name, flags, base) in bases {
            let result = try ServerTestFixture.curl(flags + ["\(base)/later/\(name.lowercased().filter(\.isLetter))"])
            XCTAssertEqual(result.status, 202, name)
            XCTAssertEqual(result.bodyText, "later \(name.lowercased().filter(\.isLetter))", name)
        }
    }

    func testManyConcurrentLaterRequestsOnOneConnectionGetTheirOwnAnswers() throws {
        let urls = (0..<50).map { "http://127.0.0.1:\(server.cleartextPort!)/later/n\($0)" }
        // nghttp (nghttp2's client) sends every URI of one authority on one connection; its
        // verbose log shows each connection it made ("Connected") and each stream's HEADERS.
        // (curl 7.88 is no use here: with --parallel it opens a connection per transfer, or with
        // multiplexing fails its own HTTP/2 framing.)
        try Fixtures.requireExecutable("/usr/bin/nghttp")
        let result = try ProcessRunner.run("/usr/bin/nghttp", ["-v"] + urls)
        XCTAssertEqual(result.status, 0, result.stderr)
        let log = result.stdout.components(separatedBy: "\n")
        XCTAssertEqual(log.filter { $0.hasSuffix("] Connected") }.count, 1, "one connection: \(result.stdout.prefix(2000))")
        XCTAssertEqual(log.filter { $0.contains("send HEADERS frame") }.count, 50, "50 streams on it")
        let answers = result.stdout.components(separatedBy: "later ").dropFirst()
            .map { "later " + $0.prefix { $0.isLetter || $0.isNumber } }
        XCTAssertEqual(answers.count, 50, result.stderr)
        XCTAssertEqual(Set(answers), Set((0..<50).map { "later n\($0)" }), result.stderr)
    }

    func testUnknownPathIs404() throws {
        for (name, flags, base) in bases {
            XCTAssertEqual(try ServerTestFixture.curl(flags + ["\(base)/nowhere"]).status, 404, name)
        }
    }

    func testWrongMethodIs405WithAllow() throws {
        for (name, flags, base) in bases {
            let result = try ServerTestFixture.curl(flags + ["-X", "DELETE", "\(base)/echo"])
            XCTAssertEqual(result.status, 405, name)
            XCTAssertTrue(result.headers.lowercased().contains("allow: post"), "\(name): \(result.headers)")
        }
    }

    func testResetStreamReplySendsRSTStream() throws {
        let result = try ServerTestFixture.curl(["--http2-prior-knowledge", "http://127.0.0.1:\(server.cleartextPort!)/reset"])
        XCTAssertNotEqual(result.exitStatus, 0)
        XCTAssertTrue(result.stderr.contains("INTERNAL_ERROR"), result.stderr)
        XCTAssertEqual(try ServerTestFixture.curl(["--http2-prior-knowledge",
                                                   "http://127.0.0.1:\(server.cleartextPort!)/health"]).status, 200)
    }

    func testQueryStringIsSplitFromThePath() throws {
        for (name, flags, base) in bases {
            let result = try ServerTestFixture.curl(flags + ["\(base)/query?a=1&b=2"])
            XCTAssertEqual(result.bodyText, "a=1&b=2", name)
        }
    }
}

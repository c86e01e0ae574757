import Foundation
import PushHTTP
import Synchronization
import TestSupport
import XCTest

/// `ServerFault`, the one fault mechanism the gateway emulator and the collector share, seen
/// from real clients: an answer in place of the handler's followed by GOAWAY (Python `h2`), a
/// reset stream (curl), and when the handler runs while an answer is held.
final class ServerFaultTests: XCTestCase {
    private var server: HTTPServer!
    private let handled = HandlerCalls()

    override func setUp() async throws {
        var router = Router()
        let handled = self.handled
        let handler: @Sendable () -> HandlerReply = {
            handled.count.withLock { $0 += 1 }
            return .now(.text(200, "handled"))
        }
        router.add("GET", "/answer-then-goaway") { request in
            ServerFault(outcome: .answer { .text(503, "refused") }, goAwayDebugData: Array(#"{"reason":"Shutdown"}"#.utf8))
                .reply(to: request, normal: handler)
        }
        router.add("GET", "/reset") { request in
            ServerFault(delay: .seconds(60), outcome: .resetStream).reply(to: request, normal: handler)
        }
        router.add("GET", "/held-then-handled") { request in
            ServerFault(outcome: .hold(.seconds(60)), handling: .thenWait).reply(to: request, normal: handler)
        }
        router.add("GET", "/held-before-handling") { request in
            ServerFault(outcome: .hold(.seconds(60)), handling: .afterWait).reply(to: request, normal: handler)
        }
        server = try ServerTestFixture.start(router)
    }

    override func tearDown() async throws {
        await server.stop()
    }

    private var base: String { "http://127.0.0.1:\(server.cleartextPort!)" }

    func testAnswerInsteadOfTheHandlerThenGoAwayWithTheDebugData() throws {
        let result = try ServerTestFixture.h2probe(["goaway", "127.0.0.1", String(server.cleartextPort!), "/answer-then-goaway"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let report = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], result.stdout)
        XCTAssertEqual(report["responses"] as? [String: Int], ["1": 503])
        let goaway = try XCTUnwrap(report["goaway"] as? [String: Any], "\(report)")
        XCTAssertEqual(goaway["error"] as? String, "NO_ERROR")
        XCTAssertEqual(goaway["debug"] as? String, #"{"reason":"Shutdown"}"#)
        XCTAssertEqual(handled.count.withLock { $0 }, 0, "the handler must not run when the fault answers")
    }

    func testResetGoesOutAtOnceWhateverTheDelay() throws {
        // With the 60 s delay applied, curl's 10 s limit would end the request first.
        let result = try ServerTestFixture.curl(["--http2-prior-knowledge", "--max-time", "10", base + "/reset"])
        XCTAssertNotEqual(result.exitStatus, 0)
        XCTAssertTrue(result.stderr.contains("INTERNAL_ERROR"), result.stderr)
        XCTAssertEqual(handled.count.withLock { $0 }, 0)
    }

    func testHeldAnswerRunsTheHandlerFirstOrAfterTheWaitAsAsked() throws {
        let late = try ServerTestFixture.curl(["--http2-prior-knowledge", "--max-time", "2", base + "/held-before-handling"])
        XCTAssertEqual(late.exitStatus, 28, "the answer is held: curl gives up (exit 28); \(late.stderr)")
        XCTAssertEqual(handled.count.withLock { $0 }, 0, "afterWait: the handler runs only once the hold is over")

        let early = try ServerTestFixture.curl(["--http2-prior-knowledge", "--max-time", "2", base + "/held-then-handled"])
        XCTAssertEqual(early.exitStatus, 28, "the answer is held: curl gives up (exit 28); \(early.stderr)")
        XCTAssertEqual(handled.count.withLock { $0 }, 1, "thenWait: the handler ran at once, only its answer waits")
    }
}

private final class HandlerCalls: Sendable {
    let count = Mutex(0)
}

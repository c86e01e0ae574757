import Foundation
import PushHTTP
import Synchronization
import TestSupport
import XCTest

/// `ResponseBatch`: `.callback` answers made together (the collector's, after one group commit)
/// and sent together — one job per event loop. Every answer reaches its own stream, on every
/// loop, and a closure responder gets its answer at `send()`, not before.
final class ServerResponseBatchTests: XCTestCase {
    func testABatchAnswersEveryStreamOnEveryLoopWithItsOwnResponse() async throws {
        let parked = Mutex<[(Int, CallbackResponder)]>([])
        let threads = Mutex(Set<UInt>())
        var router = Router()
        router.add("GET", "/park/{n}") { request in
            let n = Int(request.pathParameters["n"] ?? "") ?? -1
            threads.withLock { _ = $0.insert(UInt(pthread_self())) }
            return .callback { respond in parked.withLock { $0.append((n, respond)) } }
        }
        let server = try ServerTestFixture.start(router) { $0.eventLoops = 2 }
        let base = "http://127.0.0.1:\(try XCTUnwrap(server.cleartextPort))"
        // Eight connections (one client each), dealt to the two loops in turn.
        let clients = try (0..<8).map { _ in
            try HTTPClient(configuration: HTTPClientConfiguration(protocolMode: .h2cPriorKnowledge, requestTimeout: .seconds(30)))
        }
        let answers = Task {
            await withTaskGroup(of: (Int, Int, String).self) { group in
                for n in 0..<8 {
                    group.addTask {
                        guard let response = try? await clients[n].send(HTTPRequest(method: "GET", url: "\(base)/park/\(n)")) else {
                            return (n, 0, "")
                        }
                        return (n, response.status, String(decoding: response.body, as: UTF8.self))
                    }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
        }
        let allParked = await Poll.until { parked.withLock { $0.count } == 8 }
        XCTAssertTrue(allParked, "\(parked.withLock { $0.count }) of 8 requests reached the handler")
        XCTAssertEqual(threads.withLock { $0.count }, 2, "the requests were handled on both loops")

        var batch = ResponseBatch()
        XCTAssertTrue(batch.isEmpty)
        for (n, respond) in parked.withLock({ $0 }) { batch.add(.text(230 + n, "answer-\(n)"), for: respond) }
        // A responder that is a closure (a reply resolved without a server) is answered at send().
        let closureAnswer = Mutex<Int?>(nil)
        batch.add(.text(299, ""), for: CallbackResponder { response in closureAnswer.withLock { $0 = response.status } })
        XCTAssertNil(closureAnswer.withLock { $0 }, "nothing is answered before send()")
        XCTAssertFalse(batch.isEmpty)
        batch.send()

        let got = await answers.value.sorted { $0.0 < $1.0 }
        XCTAssertEqual(got.map(\.1), (0..<8).map { 230 + $0 }, "each stream got its own status")
        XCTAssertEqual(got.map(\.2), (0..<8).map { "answer-\($0)" }, "each stream got its own body")
        XCTAssertEqual(closureAnswer.withLock { $0 }, 299)
        for client in clients { await client.shutdown() }
        await server.stop()
    }
}

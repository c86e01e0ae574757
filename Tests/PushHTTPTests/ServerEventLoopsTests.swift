import Foundation
import Glibc
import PushHTTP
import TestSupport
import XCTest

/// `eventLoops > 1`: the first loop accepts and hands connections out round-robin; each
/// connection is served on its own loop's thread; stop drains every loop.
final class ServerEventLoopsTests: XCTestCase {
    /// Answers with the id of the thread that ran the handler and the connection id.
    private func whereRouter(gate: Gate = Gate()) -> Router {
        var router = Router()
        router.add("GET", "/where") { request in .now(.text(200, "\(pthread_self()) \(request.connection.id)")) }
        router.add("GET", "/slow") { _ in
            .later {
                await gate.pass()
                return .text(200, "finished")
            }
        }
        return router
    }

    func testConnectionsAreSpreadOverEveryLoopAndEachIsAnswered() async throws {
        let server = try ServerTestFixture.start(whereRouter()) { $0.eventLoops = 3 }
        let port = server.cleartextPort!
        var threads: Set<String> = []
        var connections: Set<String> = []
        for _ in 0..<6 {
            let reply = String(decoding: ServerTestFixture.rawExchange(
                port: port, "GET /where HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"), as: UTF8.self)
            XCTAssertTrue(reply.hasPrefix("HTTP/1.1 200"), reply)
            let fields = try XCTUnwrap(reply.components(separatedBy: "\r\n\r\n").last).split(separator: " ")
            XCTAssertEqual(fields.count, 2, reply)
            threads.insert(String(fields[0]))
            connections.insert(String(fields[1]))
        }
        // Six connections, round-robin over three loops: every loop served two of them.
        XCTAssertEqual(threads.count, 3, "handler threads: \(threads)")
        XCTAssertEqual(connections.count, 6, "connection ids must be unique across loops: \(connections)")
        // HTTP/2 over TLS works on a loop that did not accept the connection.
        for _ in 0..<3 {
            let result = try ServerTestFixture.curl(["--http2", "https://localhost:\(server.tlsPort!)/where"])
            XCTAssertEqual(result.status, 200, result.stderr)
            XCTAssertEqual(result.version, "2")
        }
        await server.stop()
    }

    func testStopDrainsInFlightRequestsOnEveryLoopAndEndsEveryThread() async throws {
        let gate = Gate()
        let (server, threads) = try await ServerTestFixture.startCountingThreads(whereRouter(gate: gate), expecting: 3) { $0.eventLoops = 3 }
        XCTAssertEqual(threads.count, 3, "one thread per loop")
        let port = server.cleartextPort!
        let requests = (0..<3).map { _ in
            ServerTestFixture.inBackground { try ServerTestFixture.curl(["--http2-prior-knowledge", "http://127.0.0.1:\(port)/slow"]) }
        }
        // All three are in their handlers (one per loop, round-robin) before the stop begins.
        let arrived = await Poll.until { gate.arrived == 3 }
        XCTAssertTrue(arrived, "\(gate.arrived) of 3 requests reached the handler")
        let stopBegan = await ServerTestFixture.stopWhileHeld(server, port: port, gate: gate)
        XCTAssertTrue(stopBegan, "the listener still accepted connections after stop() began")
        for request in requests {
            let result = try await request.value
            XCTAssertEqual(result.status, 200, result.stderr)
            XCTAssertEqual(result.bodyText, "finished")
        }
        let alive = await ServerTestFixture.threadsStillAlive(threads)
        XCTAssertEqual(alive, [], "loop threads outlived stop()")
        let open = await server.openConnectionCount()
        XCTAssertEqual(open, 0)
    }
}

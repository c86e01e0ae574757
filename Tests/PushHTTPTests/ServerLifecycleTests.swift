import Foundation
import PushHTTP
import TestSupport
import XCTest

/// Start, stop, ports, and what a stop leaves behind.
final class ServerLifecycleTests: XCTestCase {
    func testPortZeroBindsDistinctFreePortsAndReportsThem() async throws {
        let server = try ServerTestFixture.start(ServerTestFixture.standardRouter())
        let bound = try XCTUnwrap(server.boundAddresses)
        XCTAssertNotNil(bound.tlsPort)
        XCTAssertNotNil(bound.cleartextPort)
        XCTAssertNotEqual(bound.tlsPort, 0)
        XCTAssertNotEqual(bound.tlsPort, bound.cleartextPort)
        XCTAssertEqual(bound.cleartextURL, "http://127.0.0.1:\(bound.cleartextPort!)")
        await server.stop()
        XCTAssertNil(server.boundAddresses)
    }

    func testStartingAndStoppingManyServersLeaksNoThreadsOrDescriptors() async throws {
        // Each cycle follows its own server's loop thread (by thread id), so threads of servers
        // other tests stopped a moment ago do not count.
        func cycle() async throws {
            let (server, threads) = try await ServerTestFixture.startCountingThreads(ServerTestFixture.standardRouter(), expecting: 1)
            XCTAssertEqual(threads.count, 1, "one loop thread per server")
            let reply = ServerTestFixture.rawExchange(port: server.cleartextPort!,
                                                      "GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            XCTAssertTrue(reply.starts(with: Array("HTTP/1.1 200".utf8)))
            // A TLS connection that never finishes its handshake, still open when stop() runs.
            let tlsPort = server.tlsPort!
            let lingering = ServerTestFixture.inBackground {
                ServerTestFixture.rawExchange(port: tlsPort, "\u{16}\u{3}\u{1}\u{0}")
            }
            let accepted = await Poll.until { await server.openConnectionCount() == 1 }
            XCTAssertTrue(accepted, "the half-open TLS connection was never accepted")
            await server.stop()
            _ = try await lingering.value
            let alive = await ServerTestFixture.threadsStillAlive(threads)
            XCTAssertEqual(alive, [], "the loop thread outlived stop()")
        }
        // Warm up so lazily created runtime descriptors (dispatch) do not count as leaks.
        for _ in 0..<3 { try await cycle() }
        let descriptorsBefore = ServerTestFixture.openFileDescriptors()
        for _ in 0..<20 { try await cycle() }
        // A descriptor closed by a thread on its way out may take a moment: wait, then judge.
        let released = await Poll.until(timeout: 10) { ServerTestFixture.openFileDescriptors() <= descriptorsBefore }
        XCTAssertTrue(released, "descriptors: \(ServerTestFixture.openFileDescriptors()) > \(descriptorsBefore): "
                      + ServerTestFixture.describeDescriptors())
    }

    func testABusyPortFailsStartWithAClearError() async throws {
        let first = try ServerTestFixture.start(ServerTestFixture.standardRouter())
        let second = HTTPServer(configuration: HTTPServerConfiguration(cleartextPort: first.cleartextPort!), router: Router())
        XCTAssertThrowsError(try second.start()) { error in
            guard case HTTPServerError.bindFailed(_, let port, _) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(port, first.cleartextPort!)
            XCTAssertTrue("\(error)".contains("pick another port"))
        }
        await first.stop()
    }

    func testTLSWithoutCertificateIsRefused() {
        let server = HTTPServer(configuration: HTTPServerConfiguration(tlsPort: 0), router: Router())
        XCTAssertThrowsError(try server.start()) { XCTAssertEqual($0 as? HTTPServerError, .missingCertificate) }
    }

    func testStopDrainsAnInFlightSlowRequest() async throws {
        let gate = Gate()
        var router = Router()
        router.add("GET", "/slow") { _ in
            .later {
                await gate.pass()
                return .text(200, "finished")
            }
        }
        let server = try ServerTestFixture.start(router)
        let port = server.cleartextPort!
        let h2 = ServerTestFixture.inBackground { try ServerTestFixture.curl(["--http2-prior-knowledge", "http://127.0.0.1:\(port)/slow"]) }
        let h1 = ServerTestFixture.inBackground { try ServerTestFixture.curl(["--http1.1", "http://127.0.0.1:\(port)/slow"]) }
        // Both requests are in their handlers; the stop begins before they may finish.
        let arrived = await Poll.until { gate.arrived == 2 }
        XCTAssertTrue(arrived, "\(gate.arrived) of 2 requests reached the handler")
        let stopBegan = await ServerTestFixture.stopWhileHeld(server, port: port, gate: gate)
        XCTAssertTrue(stopBegan, "the listener still accepted connections after stop() began")
        let h2Result = try await h2.value
        let h1Result = try await h1.value
        XCTAssertEqual(h2Result.status, 200, h2Result.stderr)
        XCTAssertEqual(h2Result.bodyText, "finished")
        XCTAssertEqual(h1Result.status, 200, h1Result.stderr)
        XCTAssertEqual(h1Result.bodyText, "finished")
        // And nothing listens any more.
        let after = try ServerTestFixture.curl(["--http1.1", "http://127.0.0.1:\(port)/slow"])
        XCTAssertEqual(after.status, 0)
    }
}

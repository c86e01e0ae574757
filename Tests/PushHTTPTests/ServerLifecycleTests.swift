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
        // A stopped server's thread may still be on its way out for a moment.
        let threadsAtStart = try await ServerTestFixture.settledServerThreadCount()
        func cycle() async throws {
            // The previous cycle's loop thread exits a moment after stop() returns (slower under
            // ASan: it failed `make sanitize` once seeing 2); leaks are judged after 20 cycles.
            for _ in 0..<100 where ServerTestFixture.serverThreadCount() > threadsAtStart {
                try await Task.sleep(for: .milliseconds(10))
            }
            let server = try ServerTestFixture.start(ServerTestFixture.standardRouter())
            // The probe sees the loop thread while a server runs, so it can see a leaked one.
            XCTAssertEqual(ServerTestFixture.serverThreadCount(), threadsAtStart + 1)
            let reply = ServerTestFixture.rawExchange(port: server.cleartextPort!,
                                                      "GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            XCTAssertTrue(reply.starts(with: Array("HTTP/1.1 200".utf8)))
            // A TLS connection that never finishes its handshake, still open when stop() runs.
            let tlsPort = server.tlsPort!
            let lingering = ServerTestFixture.inBackground {
                ServerTestFixture.rawExchange(port: tlsPort, "\u{16}\u{3}\u{1}\u{0}")
            }
            try await Task.sleep(for: .milliseconds(20))
            await server.stop()
            _ = try await lingering.value
        }
        // Warm up so lazily created runtime descriptors (dispatch) do not count as leaks.
        for _ in 0..<3 { try await cycle() }
        try await Task.sleep(for: .milliseconds(100))
        let threadsBefore = try await ServerTestFixture.settledServerThreadCount()
        let descriptorsBefore = ServerTestFixture.openFileDescriptors()
        for _ in 0..<20 { try await cycle() }
        try await Task.sleep(for: .milliseconds(100))
        let threadsAfter = try await ServerTestFixture.settledServerThreadCount()
        XCTAssertEqual(threadsAfter, threadsBefore)
        XCTAssertLessThanOrEqual(ServerTestFixture.openFileDescriptors(), descriptorsBefore,
                                 ServerTestFixture.describeDescriptors())
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
        var router = Router()
        router.add("GET", "/slow") { _ in
            .later {
                try? await Task.sleep(for: .milliseconds(700))
                return .text(200, "finished")
            }
        }
        let server = try ServerTestFixture.start(router)
        let port = server.cleartextPort!
        let h2 = ServerTestFixture.inBackground { try ServerTestFixture.curl(["--http2-prior-knowledge", "http://127.0.0.1:\(port)/slow"]) }
        let h1 = ServerTestFixture.inBackground { try ServerTestFixture.curl(["--http1.1", "http://127.0.0.1:\(port)/slow"]) }
        try await Task.sleep(for: .milliseconds(300))
        await server.stop()
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

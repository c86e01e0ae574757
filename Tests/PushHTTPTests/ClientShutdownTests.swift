import PushHTTP
import TestSupport
import XCTest

/// `shutdown()` ends a client cleanly, with or without requests in flight.
class ClientShutdownTests: ClientTransportTestCase {
    func testGracefulShutdownLetsInFlightRequestsFinishAndRefusesNewOnes() async throws {
        let server = try ClientTestServer()
        let client = try makeClient(.testing())
        // One HTTP/2 connection first, so the ten below are multiplexed on it at once.
        _ = try await client.send(HTTPRequest(url: server.tlsURL + "/echo"))
        let inFlight = (0..<10).map { _ in Task { try await client.send(HTTPRequest(url: server.tlsURL + "/held")) } }
        let arrived = await Poll.until { server.held.arrived == 10 }
        XCTAssertTrue(arrived, "\(server.held.arrived) of 10 requests reached the server")
        // The shutdown begins while all ten are held; they are answered only once it refuses new requests.
        let shutdown = Task { await client.shutdown() }
        let refusing = await Poll.until {
            do { _ = try await client.send(HTTPRequest(url: server.tlsURL + "/echo")); return false } catch { return error as? HTTPClientError == .shutDown }
        }
        XCTAssertTrue(refusing, "the client still sends after shutdown() began")
        server.held.open()
        await shutdown.value
        for task in inFlight {
            let response = try await task.value
            XCTAssertEqual(response.status, 200)
            XCTAssertEqual(response.bodyText, "released")
        }
        do {
            _ = try await client.send(HTTPRequest(url: server.tlsURL + "/echo"))
            XCTFail("a shut-down client must refuse")
        } catch let error as HTTPClientError {
            XCTAssertEqual(error, .shutDown)
        }
        await client.shutdown()  // idempotent
        await server.stop()
    }

    func testAbortingShutdownFailsInFlightRequestsWithShutDown() async throws {
        let server = try ClientTestServer()
        let client = try makeClient(.testing())
        // One HTTP/2 connection first, so the ten below are multiplexed on it at once.
        _ = try await client.send(HTTPRequest(url: server.tlsURL + "/echo"))
        let inFlight = (0..<10).map { _ in Task { try await client.send(HTTPRequest(url: server.tlsURL + "/held")) } }
        let arrived = await Poll.until { server.held.arrived == 10 }
        XCTAssertTrue(arrived, "\(server.held.arrived) of 10 requests reached the server")
        // The server holds every answer until after the test, so only the abort can end them.
        await client.shutdown(abortInFlight: true)
        await assertEachFails(inFlight, with: .shutDown)
        await server.stop()
    }

    func testManyClientsInOneProcessStartAndStopCleanly() async throws {
        let server = try ClientTestServer()
        for round in 0..<3 {
            let clients = try (0..<8).map { _ in try makeClient(.testing(round == 1 ? .h2cPriorKnowledge : .http2)) }
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for client in clients {
                    let base = round == 1 ? server.cleartextURL : server.tlsURL
                    group.addTask { try await client.send(HTTPRequest(url: base + "/echo")).status }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            XCTAssertEqual(statuses, Array(repeating: 200, count: clients.count))
            for client in clients { await client.shutdown() }
        }
        // A client dropped without shutdown() stops its own thread.
        do {
            let dropped = try makeClient(.testing())
            _ = try await dropped.send(HTTPRequest(url: server.tlsURL + "/echo"))
        }
        await server.stop()
    }

    /// A client dropped without `shutdown()` leaves a thread to join, never a detached one: a
    /// process exiting beside a finishing client thread died in OpenSSL's exit handlers
    /// (`ClientLoopThreads`). The next client started after the loop finished joins it.
    /// Red with `started` no longer joining finished orphans (the count stays one higher).
    func testADroppedClientsThreadIsJoinedByALaterClient() async throws {
        let server = try ClientTestServer()
        // Finished threads of clients earlier tests dropped are joined first (a client started
        // joins them), so that the dropped client below is the only one to join.
        _ = await Poll.until(timeout: 5) { await self.startAndStopAClient() && ClientLoopThreads.count == 0 }
        let before = ClientLoopThreads.count
        do {
            let dropped = try makeClient(.testing())
            _ = try await dropped.send(HTTPRequest(url: server.tlsURL + "/echo"))
        }
        XCTAssertEqual(ClientLoopThreads.count, before + 1, "the dropped client's thread is not yet joined")
        let joined = await Poll.until { await self.startAndStopAClient() && ClientLoopThreads.count == before }
        XCTAssertTrue(joined, "\(ClientLoopThreads.count) client threads left, \(before) before the dropped one")
        await server.stop()
    }

    private func startAndStopAClient() async -> Bool {
        guard let client = try? makeClient(.testing()) else { return false }
        await client.shutdown()
        return true
    }

    /// What `pushlab` does before `exit`: every client still running is stopped and its thread
    /// joined. Red with `endAll` not calling the loops' stops (the joins time out: false).
    func testEndAllStopsARunningClientAndJoinsItsThread() async throws {
        let server = try ClientTestServer()
        let client = try makeClient(.testing())
        _ = try await client.send(HTTPRequest(url: server.tlsURL + "/echo"))
        XCTAssertTrue(ClientLoopThreads.endAll(within: .seconds(10)), "a client thread was still running after 10 s")
        XCTAssertEqual(ClientLoopThreads.count, 0)
        do {
            _ = try await client.send(HTTPRequest(url: server.tlsURL + "/echo"))
            XCTFail("a client stopped by endAll must refuse")
        } catch let error as HTTPClientError {
            XCTAssertEqual(error, .shutDown)
        }
        await client.shutdown()  // after endAll: returns, and joins nothing twice
        await server.stop()
    }
}

/// The same suite against the direct nghttp2 client (Linux test discovery sees only methods
/// a class declares, hence one forwarding line per test).
final class NGHTTP2ClientShutdownTests: ClientShutdownTests {
    override class var transport: HTTPTransportKind { .nghttp2 }
    override func testGracefulShutdownLetsInFlightRequestsFinishAndRefusesNewOnes() async throws { try await super.testGracefulShutdownLetsInFlightRequestsFinishAndRefusesNewOnes() }
    override func testAbortingShutdownFailsInFlightRequestsWithShutDown() async throws { try await super.testAbortingShutdownFailsInFlightRequestsWithShutDown() }
    override func testManyClientsInOneProcessStartAndStopCleanly() async throws { try await super.testManyClientsInOneProcessStartAndStopCleanly() }
    override func testADroppedClientsThreadIsJoinedByALaterClient() async throws { try await super.testADroppedClientsThreadIsJoinedByALaterClient() }
    override func testEndAllStopsARunningClientAndJoinsItsThread() async throws { try await super.testEndAllStopsARunningClientAndJoinsItsThread() }
}

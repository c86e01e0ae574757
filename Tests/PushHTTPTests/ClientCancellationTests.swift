import PushHTTP
import TestSupport
import XCTest

/// Cancelling the calling task cancels the transfer and throws `.cancelled`.
class ClientCancellationTests: ClientTransportTestCase {
    func testCancellingTheTaskAbortsAnInFlightRequest() async throws {
        let server = try ClientTestServer()
        let client = try makeClient(.testing())
        // Warm the connection so the cancelled request is surely in flight on it.
        _ = try await client.send(HTTPRequest(url: server.tlsURL + "/echo"))
        let task = Task { try await client.send(HTTPRequest(url: server.tlsURL + "/held")) }
        let arrived = await Poll.until { server.held.arrived == 1 }
        XCTAssertTrue(arrived, "the request never reached the server")
        task.cancel()
        // The server holds its answer until the test opens the gate, which happens only after
        // the cancelled call has returned: it cannot have waited for the server.
        do {
            _ = try await task.value
            XCTFail("cancelled request returned a response")
        } catch let error as HTTPClientError {
            XCTAssertEqual(error, .cancelled)
        }
        server.held.open()
        // The stream was reset, the connection lives on.
        let next = try await client.send(HTTPRequest(url: server.tlsURL + "/echo"))
        XCTAssertEqual(next.status, 200)
        XCTAssertEqual(client.stats.connectionsOpened, 1)
        await client.shutdown()
        await server.stop()
    }

    func testAlreadyCancelledTaskNeverSends() async throws {
        let server = try ClientTestServer()
        let client = try makeClient(.testing())
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await client.send(HTTPRequest(url: server.tlsURL + "/echo"))
        }
        do {
            _ = try await task.value
            XCTFail("a cancelled task must not send")
        } catch let error as HTTPClientError {
            XCTAssertEqual(error, .cancelled)
        }
        XCTAssertEqual(client.stats.connectionsOpened, 0)
        await client.shutdown()
        await server.stop()
    }
}

/// The same suite against the direct nghttp2 client (Linux test discovery sees only methods
/// a class declares, hence one forwarding line per test).
final class NGHTTP2ClientCancellationTests: ClientCancellationTests {
    override class var transport: HTTPTransportKind { .nghttp2 }
    override func testCancellingTheTaskAbortsAnInFlightRequest() async throws { try await super.testCancellingTheTaskAbortsAnInFlightRequest() }
    override func testAlreadyCancelledTaskNeverSends() async throws { try await super.testAlreadyCancelledTaskNeverSends() }
}

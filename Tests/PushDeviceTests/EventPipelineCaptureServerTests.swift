import Foundation
import PushCore
import PushHTTP
import Synchronization
@testable import PushDevice
import TestSupport
import XCTest

/// The event pipeline over the real transport (libcurl client → nghttp2 server on port 0):
/// the `/v1/b` request as the server receives it, and the batch outcomes of docs/specs/device-side.md §3
/// with a server answering 500, 429, 400 and 200.
final class EventPipelineCaptureServerTests: XCTestCase {
    /// What the server received, and the statuses it answers with (the last one repeats).
    final class Capture: Sendable {
        struct Received: Sendable {
            var method: String
            var path: String
            var headers: HTTPHeaders
            var body: [UInt8]
        }
        private let state: Mutex<(received: [Received], statuses: [Int])>
        init(statuses: [Int]) { state = Mutex(([], statuses)) }
        var received: [Received] { state.withLock { $0.received } }
        func record(_ request: ServerRequest) -> Int {
            state.withLock { s in
                s.received.append(Received(method: request.method, path: request.path, headers: request.headers, body: request.body))
                return s.statuses.count > 1 ? s.statuses.removeFirst() : s.statuses[0]
            }
        }
    }

    func startServer(_ capture: Capture, tls: Bool = false) throws -> (HTTPServer, String) {
        var router = Router()
        router.add("POST", "/v1/b") { request in
            let status = capture.record(request)
            return .now(.json(status, status < 300 ? #"{"success":true}"# : #"{"error":"scripted"}"#))
        }
        let configuration = tls
            ? HTTPServerConfiguration(tlsPort: 0, cleartextPort: nil, certificateFile: Fixtures.serverCert, privateKeyFile: Fixtures.serverKey)
            : HTTPServerConfiguration(cleartextPort: 0)
        let server = HTTPServer(configuration: configuration, router: router)
        try server.start()
        let base = tls ? "https://localhost:\(server.tlsPort!)" : "http://127.0.0.1:\(server.cleartextPort!)"
        return (server, base)
    }

    func opened(_ id: String, _ date: Date) -> PipelineEvent {
        .deliveryMetric(.opened, deliveryID: id, recipient: "tok-\(id)", timestamp: date,
                        identity: PipelineIdentity(anonymousId: "anon-42", userId: "user-9"), messageId: "msg-\(id)")
    }

    func testTheServerReceivesTheBatchEnvelopeOverTLSAndHTTP2() async throws {
        let capture = Capture(statuses: [200])
        let (server, base) = try startServer(capture, tls: true)
        let client = try HTTPClient(configuration: HTTPClientConfiguration(caFile: Fixtures.caFile))
        let clock = ManualTimeSource(Date(timeIntervalSince1970: 1_775_126_768.5))
        let pipeline = EventPipeline(configuration: .cdp(baseURL: base, writeKey: "cdp-key"), transport: client, time: clock)
        await pipeline.enqueue(opened("d1", clock.now))
        let report = await pipeline.flush()
        await client.shutdown()
        await server.stop()

        XCTAssertEqual(report.attempts.first?.outcome, .accepted(status: 200))
        let request = try XCTUnwrap(capture.received.first)
        XCTAssertEqual(request.method, "POST")
        XCTAssertEqual(request.path, "/v1/b")
        XCTAssertEqual(request.headers["content-type"], "application/json; charset=utf-8")
        XCTAssertEqual(request.headers["authorization"], "Basic " + Data("cdp-key:".utf8).base64EncodedString())
        let body = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any])
        XCTAssertEqual(body["writeKey"] as? String, "cdp-key")
        XCTAssertEqual(body["sentAt"] as? String, "2026-04-02T10:46:08.500Z")
        let item = try XCTUnwrap((body["batch"] as? [[String: Any]])?.first)
        XCTAssertEqual(item["type"] as? String, "track")
        XCTAssertEqual(item["event"] as? String, "Report Delivery Event")
        XCTAssertEqual(item["messageId"] as? String, "msg-d1")
        XCTAssertEqual(item["anonymousId"] as? String, "anon-42")
        XCTAssertEqual(item["userId"] as? String, "user-9")
        XCTAssertEqual(item["timestamp"] as? String, "2026-04-02T10:46:08.500Z")
        XCTAssertEqual(item["properties"] as? [String: String], ["metric": "opened", "deliveryId": "d1", "recipient": "tok-d1"])
    }

    func testServerErrorsAndRateLimitsKeepTheBatchAndBadRequestDeletesIt() async throws {
        let capture = Capture(statuses: [500, 429, 400, 200])
        let (server, base) = try startServer(capture)
        let client = try HTTPClient()
        let clock = ManualTimeSource()
        let pipeline = EventPipeline(configuration: .cdp(baseURL: base, writeKey: "k"), transport: client, time: clock)

        await pipeline.enqueue(opened("a", clock.now))
        let afterServerError = await pipeline.flush()
        XCTAssertEqual(afterServerError.attempts.first?.outcome, .kept(.status(500)))
        XCTAssertEqual(afterServerError.remaining, 1)

        clock.advance(by: 30)
        let afterRateLimit = await pipeline.tick()
        XCTAssertEqual(afterRateLimit?.attempts.first?.outcome, .kept(.status(429)))
        XCTAssertEqual(afterRateLimit?.remaining, 1)

        clock.advance(by: 30)
        let afterBadRequest = await pipeline.tick()
        XCTAssertEqual(afterBadRequest?.attempts.first?.outcome, .rejected(status: 400))
        XCTAssertEqual(afterBadRequest?.remaining, 0, "400 deletes without retry")

        await pipeline.enqueue(opened("b", clock.now))
        let afterSuccess = await pipeline.flush()
        XCTAssertEqual(afterSuccess.attempts.first?.outcome, .accepted(status: 200))
        XCTAssertEqual(afterSuccess.remaining, 0)
        await client.shutdown()
        await server.stop()

        // The same event went out three times (500, 429, 400), then never again.
        let ids = try capture.received.map { r -> [String] in
            let body = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(r.body)) as? [String: Any])
            return (body["batch"] as? [[String: Any]])?.compactMap { $0["messageId"] as? String } ?? []
        }
        XCTAssertEqual(ids, [["msg-a"], ["msg-a"], ["msg-a"], ["msg-b"]])
    }

    func testAnUnreachableCollectorKeepsTheBatch() async throws {
        let capture = Capture(statuses: [200])
        let (server, base) = try startServer(capture)
        await server.stop()  // the port is now closed
        let client = try HTTPClient(configuration: HTTPClientConfiguration(connectTimeout: .seconds(2)))
        let clock = ManualTimeSource()
        let pipeline = EventPipeline(configuration: .cdp(baseURL: base, writeKey: "k"), transport: client, time: clock)
        await pipeline.enqueue(opened("x", clock.now))
        let report = await pipeline.flush()
        await client.shutdown()
        guard case .kept(.network) = report.attempts.first?.outcome else {
            return XCTFail("a network error must keep the batch: \(String(describing: report.attempts.first?.outcome))")
        }
        XCTAssertEqual(report.remaining, 1)
    }
}

@testable import PushHTTP
import Foundation
import Synchronization
import TestSupport
import XCTest

/// What the server receives must not depend on how the client batched its work: a request sent
/// in a burst (on a pooled easy handle whose header lines were rewritten in place, with the
/// connection corked while libcurl wrote the whole batch) carries exactly the header fields, in
/// the same order, and the body it carries when sent alone.
class ClientWireHeadersTests: ClientTransportTestCase {
    /// Every `POST /record` the server got, by its `x-id`: header fields in arrival order, body.
    final class Recorder: Sendable {
        struct Seen: Sendable {
            var headers: [HTTPHeader]
            var body: [UInt8]
        }
        /// Shared with the server's handler (its loop thread) and the test.
        final class Log: Sendable {
            let requests = Mutex<[String: Seen]>([:])
        }
        private let log = Log()
        let server: HTTPServer

        init() throws {
            var router = Router()
            let log = self.log
            router.add("POST", "/record") { request in
                let id = request.headers["x-id"] ?? ""
                log.requests.withLock { $0[id] = Seen(headers: request.headers.fields, body: request.body) }
                return .now(ServerResponse(status: 200, headers: ["x-id": id]))
            }
            server = HTTPServer(configuration: HTTPServerConfiguration(
                host: "127.0.0.1", tlsPort: 0, cleartextPort: 0, certificateFile: Fixtures.serverCert,
                privateKeyFile: Fixtures.serverKey), router: router)
            try server.start()
        }

        func request(_ id: String) -> Seen? { log.requests.withLock { $0[id] } }
        var count: Int { log.requests.withLock { $0.count } }
    }

    /// Request `index` of a burst: shared, per-request and varying-length values (so some
    /// rewritten lines fit over the old text and some do not), and a body whose length varies.
    private static func request(_ url: String, id: String, index: Int) -> HTTPRequest {
        HTTPRequest(method: "POST", url: url,
                    headers: HTTPHeaders([HTTPHeader("x-fixed", "the same for every request"), HTTPHeader("x-id", id),
                                          HTTPHeader("x-order", String(index)), HTTPHeader("content-type", "application/json")]),
                    body: Array(#"{"index":\#(index),"pad":"\#(String(repeating: "p", count: index % 7))"}"#.utf8))
    }

    private static func burstID(_ index: Int, _ mode: HTTPClientConfiguration.ProtocolMode) -> String {
        "\(mode)-\(index)-" + String(repeating: "x", count: (index * 7) % 41)
    }

    /// The fields a request sent alone carried, with the per-request values of `index` put in.
    private static func expected(from reference: [HTTPHeader], id: String, index: Int, bodyCount: Int) -> [HTTPHeader] {
        reference.map { field in
            switch field.name.lowercased() {
            case "x-id": return HTTPHeader(field.name, id)
            case "x-order": return HTTPHeader(field.name, String(index))
            case "content-length": return HTTPHeader(field.name, String(bodyCount))
            default: return field
            }
        }
    }

    func testABurstSendsEachRequestsHeadersAndBodyAsARequestSentAlone() async throws {
        let recorder = try Recorder()
        for mode in [HTTPClientConfiguration.ProtocolMode.http2, .h2cPriorKnowledge] {
            let base = mode == .http2 ? "https://localhost:\(recorder.server.tlsPort!)" : "http://127.0.0.1:\(recorder.server.cleartextPort!)"
            let url = base + "/record"
            let client = try makeClient(.testing(mode))
            let referenceID = "alone-\(mode)"
            let alone = try await client.send(Self.request(url, id: referenceID, index: 0))
            XCTAssertEqual(alone.headers["x-id"], referenceID)
            let reference = try XCTUnwrap(recorder.request(referenceID)).headers
            XCTAssertEqual(reference.filter { $0.name.hasPrefix("x-") }.map(\.name), ["x-fixed", "x-id", "x-order"], "\(mode)")

            // Tasks on the client's loop: their requests reach libcurl in the same turns.
            let burst = 300
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 1...burst {
                    group.addTask(executorPreference: client.executor) {
                        let id = Self.burstID(index, mode)
                        let response = try await client.send(Self.request(url, id: id, index: index))
                        XCTAssertEqual(response.headers["x-id"], id, "\(mode): the answer to request \(index)")
                    }
                }
                try await group.waitForAll()
            }
            // The same shape alone again, on a handle the burst left behind.
            _ = try await client.send(Self.request(url, id: referenceID + "-after", index: burst + 1))
            if let curl = client as? HTTPClient {  // corking is the libcurl loop's; NGHTTP2Client gathers frames itself
                XCTAssertGreaterThan(curl.corkedTurns, 0, "\(mode): the burst must have gone out corked")
            }
            XCTAssertEqual(client.stats.connectionsOpened, 1, "\(mode)")
            await client.shutdown()

            for index in 1...(burst + 1) {
                let id = index <= burst ? Self.burstID(index, mode) : referenceID + "-after"
                let sent = Self.request(url, id: id, index: index)
                guard let seen = recorder.request(id) else {
                    XCTFail("\(mode): request \(index) never reached the server")
                    continue
                }
                XCTAssertEqual(seen.body, sent.body, "\(mode): body of request \(index)")
                XCTAssertEqual(seen.headers, Self.expected(from: reference, id: id, index: index, bodyCount: sent.body.count),
                               "\(mode): header fields of request \(index)")
            }
        }
        XCTAssertEqual(recorder.count, 2 * 302)
        await recorder.server.stop()
    }
}

/// The same suite against the direct nghttp2 client (Linux test discovery sees only methods
/// a class declares, hence one forwarding line per test).
final class NGHTTP2ClientWireHeadersTests: ClientWireHeadersTests {
    override class var transport: HTTPTransportKind { .nghttp2 }
    override func testABurstSendsEachRequestsHeadersAndBodyAsARequestSentAlone() async throws { try await super.testABurstSendsEachRequestsHeadersAndBodyAsARequestSentAlone() }
}

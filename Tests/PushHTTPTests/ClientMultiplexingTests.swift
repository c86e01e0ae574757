import PushHTTP
import TestSupport
import XCTest

/// HTTP/2 multiplexing: many concurrent requests ride one connection as streams.
class ClientMultiplexingTests: ClientTransportTestCase {
    func testThousandConcurrentRequestsGetTheirOwnResponsesOnOneConnection() async throws {
        try await assertThousandRequestsShareOneConnection(mode: .http2, tls: true)
    }

    func testThousandConcurrentH2cRequestsShareOneConnection() async throws {
        try await assertThousandRequestsShareOneConnection(mode: .h2cPriorKnowledge, tls: false)
    }

    private func assertThousandRequestsShareOneConnection(mode: HTTPClientConfiguration.ProtocolMode, tls: Bool) async throws {
        let server = try ClientTestServer()
        let client = try makeClient(.testing(mode))
        let base = tls ? server.tlsURL : server.cleartextURL
        let count = 1000
        let mismatches = try await withThrowingTaskGroup(of: Int.self) { group in
            for seq in 0..<count {
                group.addTask {
                    let response = try await client.send(HTTPRequest(method: "POST", url: base + "/echo",
                                                                     headers: ["x-seq": "\(seq)"], body: Array("body-\(seq)".utf8)))
                    let expected = "POST /echo seq=\(seq)\nbody-\(seq)"
                    let ok = response.status == 200 && response.headers["x-seq"] == "\(seq)" && response.bodyText == expected
                        && response.version == .http2
                    if !ok { print("MISMATCH \(seq): \(response.status) \(response.version) \(response.headers.fields) \(response.bodyText.prefix(80))") }
                    return ok ? 0 : 1
                }
            }
            return try await group.reduce(0, +)
        }
        XCTAssertEqual(mismatches, 0, "every request must get its own response")
        let stats = client.stats
        XCTAssertEqual(stats.requestsCompleted, count)
        XCTAssertEqual(stats.requestsFailed, 0)
        XCTAssertEqual(stats.connectionsOpened, 1, "all \(count) requests must share one connection")
        await client.shutdown()
        await server.stop()
    }

    func testServerStreamLimitIsRespected() async throws {
        // The server allows 5 concurrent streams; 50 requests that each take a while still all
        // succeed on one connection, waiting for free streams instead of being refused.
        let server = try ClientTestServer(settings: HTTP2Settings(maxConcurrentStreams: 5))
        let client = try makeClient(.testing())
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<50 {
                group.addTask { try await client.send(HTTPRequest(url: server.tlsURL + "/slow/5")).status }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        XCTAssertEqual(statuses, Array(repeating: 200, count: 50))
        XCTAssertEqual(client.stats.connectionsOpened, 1)
        await client.shutdown()
        await server.stop()
    }
}

/// The same suite against the direct nghttp2 client (Linux test discovery sees only methods
/// a class declares, hence one forwarding line per test).
final class NGHTTP2ClientMultiplexingTests: ClientMultiplexingTests {
    override class var transport: HTTPTransportKind { .nghttp2 }
    override func testThousandConcurrentRequestsGetTheirOwnResponsesOnOneConnection() async throws { try await super.testThousandConcurrentRequestsGetTheirOwnResponsesOnOneConnection() }
    override func testThousandConcurrentH2cRequestsShareOneConnection() async throws { try await super.testThousandConcurrentH2cRequestsShareOneConnection() }
    override func testServerStreamLimitIsRespected() async throws { try await super.testServerStreamLimitIsRespected() }
}

import Foundation
@testable import PushHTTP
import TestSupport
import XCTest

/// What the direct nghttp2 client adds to the shared behaviour suites (Client*Tests run
/// against both transports): waking its sleeping loop, replacing a connection the server
/// closed, queueing beyond the server's stream limit, re-sending exactly the requests a GOAWAY
/// left unprocessed, and the factory's choice.
final class NGHTTP2ClientTests: XCTestCase {
    /// `body` or a failure after `seconds`: a lost wakeup would otherwise hang the test.
    private func withDeadline<T: Sendable>(_ seconds: Int, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await body() }
            group.addTask {
                try await Task.sleep(for: .seconds(seconds))
                return nil
            }
            guard let first = try await group.next(), let value = first else {
                group.cancelAll()
                throw HTTPClientError.protocolError("no answer within \(seconds) s: the loop missed a wakeup")
            }
            group.cancelAll()
            return value
        }
    }

    func testRequestsFromOtherThreadsWakeTheSleepingLoop() async throws {
        // With no request in flight the loop sleeps without a deadline; only the eventfd
        // written by `send` can wake it. One request at a time from the global executor, so
        // every request finds the loop asleep (or about to be).
        let server = try ClientTestServer()
        let client = try NGHTTP2Client(configuration: .testing(.h2cPriorKnowledge))
        let url = server.cleartextURL + "/count"
        let answered = try await withDeadline(60) {
            var answered = 0
            for seq in 0..<200 {
                let response = try await client.send(HTTPRequest(method: "POST", url: url, headers: ["x-seq": "\(seq)"]))
                if response.status == 200 && response.bodyText == "\(seq)" { answered += 1 }
            }
            return answered
        }
        XCTAssertEqual(answered, 200)
        XCTAssertEqual(client.stats.connectionsOpened, 1)
        await client.shutdown()
        await server.stop()
    }

    func testAConnectionTheServerClosedIsReplacedForTheNextRequest() async throws {
        for tls in [true, false] {
            let server = try ClientTestServer(idleTimeout: .milliseconds(100))
            let client = try NGHTTP2Client(configuration: .testing(.h2cPriorKnowledge))
            let url = (tls ? server.tlsURL : server.cleartextURL) + "/count"
            let first = try await client.send(HTTPRequest(method: "POST", url: url, headers: ["x-seq": "1"]))
            XCTAssertEqual(first.status, 200)
            // The server closes the idle connection (GOAWAY, then the socket): an event to wait for.
            let closed = await Poll.until { await server.server.openConnectionCount() == 0 }
            XCTAssertTrue(closed, "the server kept its idle connection")
            let second = try await client.send(HTTPRequest(method: "POST", url: url, headers: ["x-seq": "2"]))
            XCTAssertEqual(second.status, 200)
            XCTAssertEqual(client.stats.connectionsOpened, 2, "tls \(tls): one connection, then its replacement")
            XCTAssertEqual(client.stats.requestsFailed, 0)
            XCTAssertEqual(server.counts.withLock { $0 }, ["1": 1, "2": 1])
            await client.shutdown()
            await server.stop()
        }
    }

    func testRequestsBeyondTheServersStreamLimitWaitForAFreeStream() async throws {
        let server = try ClientTestServer(settings: HTTP2Settings(maxConcurrentStreams: 2))
        let client = try NGHTTP2Client(configuration: .testing())
        // The server's SETTINGS first, so the client knows the limit before the burst.
        _ = try await client.send(HTTPRequest(method: "POST", url: server.tlsURL + "/count", headers: ["x-seq": "warm"]))
        let held = (0..<6).map { _ in Task { try await client.send(HTTPRequest(url: server.tlsURL + "/held")) } }
        let two = await Poll.until { server.held.arrived == 2 }
        XCTAssertTrue(two, "\(server.held.arrived) held requests reached the server")
        // The other four wait in the client (not refused by the server, which would count as
        // failures or extra attempts) and go out as streams free up once the gate opens.
        server.held.open()
        for task in held {
            let response = try await task.value
            XCTAssertEqual(response.bodyText, "released")
        }
        XCTAssertEqual(server.held.arrived, 6)
        XCTAssertEqual(client.stats.requestsFailed, 0)
        XCTAssertEqual(client.stats.connectionsOpened, 1)
        await client.shutdown()
        await server.stop()
    }

    func testRequestsAGoAwayLeftUnprocessedAreSentAgainExactlyOnce() async throws {
        // A burst of POSTs races a GOAWAY: those above the server's last stream id are refused
        // by it and go out again on a new connection; none is lost and none counted twice.
        // Two clients (two loop threads, as `send --connections 2`), each worker on its
        // client's loop like a bulk send, each client getting its own GOAWAY.
        for mode in [HTTPClientConfiguration.ProtocolMode.http2, .h2cPriorKnowledge] {
            let server = try ClientTestServer()
            let base = mode == .http2 ? server.tlsURL : server.cleartextURL
            let clients = try (0..<2).map { _ in try NGHTTP2Client(configuration: .testing(mode)) }
            for (index, client) in clients.enumerated() {
                _ = try await client.send(HTTPRequest(method: "POST", url: base + "/count", headers: ["x-seq": "warm-\(index)"]))
            }
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for client in clients {
                    group.addTask(executorPreference: client.executor) { try await client.send(HTTPRequest(url: base + "/goaway")).status }
                }
                for seq in 0..<200 {
                    let client = clients[seq % clients.count]
                    group.addTask(executorPreference: client.executor) {
                        try await client.send(HTTPRequest(method: "POST", url: base + "/count", headers: ["x-seq": "\(seq)"])).status
                    }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            XCTAssertEqual(statuses, Array(repeating: 200, count: 202), "\(mode)")
            let counts = server.counts.withLock { $0 }
            XCTAssertEqual(counts.count, 202, "\(mode): every request reached the server")
            XCTAssertEqual(counts.values.filter { $0 != 1 }.count, 0, "\(mode): a request was processed twice")
            for client in clients {
                XCTAssertEqual(client.stats.requestsFailed, 0, "\(mode)")
                await client.shutdown()
            }
            await server.stop()
        }
        // The race above may leave nothing unprocessed (on h2c the server often reads the whole
        // burst before its GOAWAY goes out), so it cannot show a request being sent again. This
        // part makes it certain: the Python h2 peer holds /goaway-after/8 until 8 POSTs arrived
        // on its connection, leaves them unprocessed and sends GOAWAY naming the held stream as
        // the last one processed. Each of the 8 must be sent again, once, on a second connection.
        let peer = try ServerProcess([Fixtures.path("Tests/Peers/h2server.py")], executable: Fixtures.python) { $0.contains("listening on ") }
        defer { _ = peer.stop() }
        let port = try XCTUnwrap(peer.port(after: "listening on "), peer.banner)
        let base = "http://127.0.0.1:\(port)"
        let client = try NGHTTP2Client(configuration: .testing(.h2cPriorKnowledge))
        let held = Task { try await client.send(HTTPRequest(url: base + "/goaway-after/8")).status }
        XCTAssertTrue(peer.waitForOutput { $0.contains("held /goaway-after/8") }, "the peer never got the held request: \(peer.stdout)")
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for seq in 0..<8 {
                group.addTask { try await client.send(HTTPRequest(method: "POST", url: base + "/item/\(seq)")).status }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        let heldStatus = try await held.value
        XCTAssertEqual(heldStatus, 200)
        XCTAssertEqual(statuses, Array(repeating: 200, count: 8))
        // The peer prints each line before it writes the answer, but its output reaches this
        // process through a pipe and a reader thread: wait for the lines, not just the answers.
        let printed = peer.waitForOutput { out in (0..<8).allSatisfy { out.contains("answered /item/\($0)\n") } }
        XCTAssertTrue(printed, "the peer never printed every answer: \(peer.stdout)")
        let lines = peer.stdout.split(separator: "\n")
        for seq in 0..<8 {
            XCTAssertEqual(lines.filter { $0 == "unprocessed /item/\(seq)" }.count, 1, "/item/\(seq) was sent on the first connection: \(peer.stdout)")
            XCTAssertEqual(lines.filter { $0 == "answered /item/\(seq)" }.count, 1, "/item/\(seq) was sent again exactly once: \(peer.stdout)")
        }
        XCTAssertEqual(client.stats.connectionsOpened, 2, "the second send went out on a new connection")
        XCTAssertEqual(client.stats.requestsFailed, 0)
        await client.shutdown()
    }

    func testTheFactoryFallsBackToLibcurlWhereOnlyItCanServe() {
        let h2 = HTTPClientConfiguration()
        XCTAssertEqual(HTTPTransports.kind(for: h2, preferring: .nghttp2, environment: [:]).kind, .nghttp2)
        XCTAssertEqual(HTTPTransports.kind(for: h2, preferring: .curl, environment: [:]).kind, .curl)
        let proxied = HTTPTransports.kind(for: h2, preferring: .nghttp2, environment: ["https_proxy": "http://proxy:3128"])
        XCTAssertEqual(proxied.kind, .curl)
        XCTAssertEqual(proxied.reason, "https_proxy is set and proxies need libcurl")
        XCTAssertEqual(HTTPTransports.kind(for: h2, preferring: .nghttp2, environment: ["https_proxy": ""]).kind, .nghttp2)
        var certificate = h2
        certificate.clientCertificate = .init(file: "cert.p12", format: .pkcs12(password: ""))
        XCTAssertEqual(HTTPTransports.kind(for: certificate, preferring: .nghttp2, environment: [:]).kind, .curl)
        XCTAssertEqual(HTTPTransports.kind(for: .testing(.http1), preferring: .nghttp2, environment: [:]).kind, .curl)
    }

    func testCleartextURLsInHTTP2ModeGoOutAsHTTP1ThroughLibcurl() async throws {
        let server = try ClientTestServer()
        let client = try NGHTTP2Client(configuration: .testing(.http2))
        let response = try await client.send(HTTPRequest(url: server.cleartextURL + "/echo"))
        XCTAssertEqual(response.version, .http1_1)
        XCTAssertEqual(response.headers["x-version"], "HTTP/1.1")
        let h2 = try await client.send(HTTPRequest(url: server.tlsURL + "/echo"))
        XCTAssertEqual(h2.version, .http2)
        XCTAssertEqual(client.stats.requestsCompleted, 2)
        await client.shutdown()
        await server.stop()
    }

    func testTargetsAreCutFromURLsAsNghttp2NeedsThem() throws {
        let target = try XCTUnwrap(NGHTTP2Target(url: "https://API.Push.Example:8443/3/device/ab?x=1#frag"))
        XCTAssertEqual(target.originKey, "https://api.push.example:8443")
        XCTAssertEqual(target.authority, "API.Push.Example:8443")
        XCTAssertEqual(target.path, "/3/device/ab?x=1")
        XCTAssertEqual(try XCTUnwrap(NGHTTP2Target(url: "http://[::1]:80?q")).path, "/?q")
        XCTAssertEqual(try XCTUnwrap(NGHTTP2Target(url: "http://[::1]:80?q")).host, "::1")
        XCTAssertEqual(try XCTUnwrap(NGHTTP2Target(url: "https://example.com")).port, 443)
        XCTAssertNil(NGHTTP2Target(url: "ftp://example.com/x"))
        XCTAssertNil(NGHTTP2Target(url: "https://user@example.com/x"))
        XCTAssertNil(NGHTTP2Target(url: "https://example.com:99999/x"))
        XCTAssertNil(NGHTTP2Target(url: "https:///x"))
    }
}

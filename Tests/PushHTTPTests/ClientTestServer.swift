import Foundation
import PushHTTP
import TestSupport
import XCTest

/// pushlab's own HTTPServer, started in-process on port 0 with the routes the client tests
/// need. One TLS listener (certs/server.pem unless told otherwise) and one cleartext listener
/// (h2c prior knowledge or HTTP/1.1).
final class ClientTestServer: Sendable {
    let server: HTTPServer
    /// Holds every `GET /held` request in its handler until the test opens it (`held.arrived`
    /// counts them): "in flight" is an event the test waits for, not a sleep.
    let held = Gate()

    /// Every `POST /count` by its `x-seq` header: how often the server processed each request.
    let counts = SanitizerVisibleMutex<[String: Int]>([:])

    init(certificate: String = Fixtures.serverCert, key: String = Fixtures.serverKey,
         settings: HTTP2Settings = HTTP2Settings(), idleTimeout: Duration? = nil) throws {
        var router = Router()
        // Echoes the request: status 200, `x-seq` copied back, body "METHOD PATH seq=N" + body.
        let echo: RouteHandler = { request in
            var headers = HTTPHeaders()
            let seq = request.headers["x-seq"] ?? "-"
            headers.add("x-seq", seq)
            headers.add("x-version", request.version.rawValue)
            headers.add("x-first", "1")
            headers.add("x-second", "2")
            headers.add("x-user-agent", request.headers["user-agent"] ?? "")
            headers.add("x-content-type", request.headers["content-type"] ?? "")
            headers.add("x-expect", request.headers["expect"] ?? "")
            var body = Array("\(request.method) \(request.path) seq=\(seq)\n".utf8)
            body += request.body
            return .now(ServerResponse(status: 200, headers: headers, body: body))
        }
        router.add("GET", "/echo", echo)
        router.add("POST", "/echo", echo)
        router.add("PUT", "/echo", echo)
        router.add("DELETE", "/echo", echo)
        // Answers with the size and a checksum of what it received.
        router.add("POST", "/upload") { request in
            .now(.text(200, "\(request.body.count) \(ClientTestServer.checksum(request.body))"))
        }
        let held = self.held
        router.add("GET", "/held") { _ in
            .later {
                await held.pass()
                return .text(200, "released")
            }
        }
        // `count` bytes of a repeating pattern.
        router.add("GET", "/bytes/{count}") { request in
            let count = Int(request.pathParameters["count"] ?? "") ?? 0
            return .now(ServerResponse(status: 200, body: ClientTestServer.pattern(count)))
        }
        // Answers after `ms` milliseconds, off the loop thread.
        router.add("GET", "/slow/{ms}") { request in
            let ms = Int(request.pathParameters["ms"] ?? "") ?? 0
            return .later {
                try? await Task.sleep(for: .milliseconds(ms))
                return .text(200, "slept \(ms)")
            }
        }
        // /redirect/N → 302 to /redirect/N-1 … /redirect/0 → 200.
        router.add("GET", "/redirect/{n}") { request in
            let n = Int(request.pathParameters["n"] ?? "") ?? 0
            if n == 0 { return .now(.text(200, "arrived")) }
            return .now(ServerResponse(status: 302, headers: ["location": "/redirect/\(n - 1)"]))
        }
        router.add("POST", "/see-other") { _ in
            .now(ServerResponse(status: 303, headers: ["location": "echo"]))
        }
        router.add("POST", "/temporary") { _ in
            .now(ServerResponse(status: 307, headers: ["location": "/echo"]))
        }
        // An empty 200, like APNs accepting a push.
        router.add("POST", "/accepted") { _ in .now(ServerResponse(status: 200)) }
        // Answers, then sends GOAWAY: the connection takes no new streams.
        router.add("GET", "/goaway") { request in
            request.connection.goAway()
            return .now(.text(200, "bye"))
        }
        let counts = self.counts
        router.add("POST", "/count") { request in
            let seq = request.headers["x-seq"] ?? "-"
            counts.withLock { $0[seq, default: 0] += 1 }
            return .now(.text(200, seq))
        }
        server = HTTPServer(configuration: HTTPServerConfiguration(
            host: "127.0.0.1", tlsPort: 0, cleartextPort: 0, certificateFile: certificate, privateKeyFile: key,
            settings: settings, idleTimeout: idleTimeout), router: router)
        try server.start()
    }

    /// `https://localhost:PORT` (the certificate names localhost).
    var tlsURL: String { "https://localhost:\(server.tlsPort!)" }
    var cleartextURL: String { "http://127.0.0.1:\(server.cleartextPort!)" }

    /// Opens `held` (so no handler waits through the drain) and stops the server.
    func stop() async {
        held.open()
        await server.stop()
    }

    /// One allocation and a plain loop: `(0..<count).map` in a debug build goes through the
    /// unspecialised generic `map` (metadata lookups and allocations per element), which under
    /// AddressSanitizer (a stack trace captured per allocation) took seconds for the 4 MB body
    /// of ClientResponseLimitTests, on the server's loop thread, and past the 20 s request
    /// timeout when the machine was busy.
    static func pattern(_ count: Int) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            for index in 0..<count { buffer[index] = UInt8(truncatingIfNeeded: index &* 31 &+ 7) }
            initialized = count
        }
    }

    /// FNV-1a, enough to tell two bodies apart.
    static func checksum(_ bytes: [UInt8]) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return hash
    }
}

extension HTTPClientConfiguration {
    /// Trusts the dev CA, as every test against pushlab's own TLS listener must.
    static func testing(_ mode: ProtocolMode = .http2, requestTimeout: Duration = .seconds(20)) -> HTTPClientConfiguration {
        HTTPClientConfiguration(protocolMode: mode, caFile: Fixtures.caFile, requestTimeout: requestTimeout)
    }
}

/// Awaits every task and checks that each failed with `expected` (none returned a response).
func assertEachFails(_ tasks: [Task<HTTPResponse, any Error>], with expected: HTTPClientError,
                     file: StaticString = #filePath, line: UInt = #line) async {
    for task in tasks {
        do {
            _ = try await task.value
            XCTFail("a request returned a response; expected \(expected)", file: file, line: line)
        } catch {
            XCTAssertEqual(error as? HTTPClientError, expected, file: file, line: line)
        }
    }
}

import PushHTTP

/// One run of the HTTP/1.1 request-parser fuzz target (Fuzz/FuzzHTTP1), shared with the
/// regression tests that replay its inputs (Tests/PushHTTPTests/HTTP1FuzzRegressionTests.swift).
///
/// Input: the first byte is the write size (0: everything in one write; n: n-byte writes, so
/// heads, chunk sizes and bodies arrive split at every position); the rest is what a client
/// sends on one cleartext connection. The server is the real connection code over an
/// in-memory pair (`InMemoryServerConnection`), with small limits so a fuzzer reaches them.
public enum HTTP1FuzzExchange {
    public struct Report {
        /// The server's answers, parsed.
        public var responses: [HTTP1ResponseStream.Response]
        public var closedByServer: Bool
        public var rawOutput: [UInt8]
    }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Limits reachable within a fuzz input (libFuzzer's -max_len is 64 KiB in scripts/fuzz).
    public static let configuration = HTTPServerConfiguration(maxRequestBodyBytes: 16 << 10, maxHeaderListBytes: 2 << 10,
                                                              handshakeTimeout: nil)

    /// Routes covering each kind of handler reply; `/echo` reflects a request header into a
    /// response header and the body into the body, as handlers that echo ids do.
    public static func router() -> Router {
        var router = Router()
        router.add("GET", "/health") { _ in .now(.json(200, #"{"status":"ok"}"#)) }
        router.add("POST", "/echo") { request in
            var response = ServerResponse(status: 200, body: Array("echo:".utf8) + request.body)
            response.headers.set("x-echo", request.headers["x-echo"] ?? "")
            response.headers.set("x-method", request.method)
            return .now(response)
        }
        router.add("GET", "/later") { _ in .later { .text(200, "later\n") } }
        router.add("POST", "/later") { request in
            let count = request.body.count
            return .later { .text(200, "later \(count)\n") }
        }
        router.add("GET", "/throw") { _ in throw Failure(description: "handler failed") }
        router.add("GET", "/reset") { _ in .resetStream(errorCode: .cancel) }
        return router
    }

    /// The server every input of a fuzzing process connects to (`run(_:host:)`).
    package static func makeHost() throws -> InMemoryServerHost {
        try InMemoryServerHost(configuration: configuration, router: router())
    }

    /// Runs one input; a `Failure` says which invariant broke (the output is not a valid
    /// sequence of HTTP/1.1 responses).
    public static func run(_ input: [UInt8]) throws -> Report { try run(input, host: nil) }

    /// How many writes an input asks for (its first byte: the write size).
    public static func writeCount(_ input: [UInt8]) -> Int {
        guard let first = input.first, input.count > 1 else { return 0 }
        let count = input.count - 1
        return first == 0 ? 1 : (count + Int(first) - 1) / Int(first)
    }

    /// With `host` (from `makeHost()`, used by one thread) the input is one more connection to
    /// it, as the fuzz target runs every input: no event base, core or router per input.
    /// Without, the input gets a server of its own. `transport`: how the bytes reach the server
    /// (`InMemoryServerConnection.Transport`; `.pair` through the event loop, `.direct` without
    /// a loop iteration per write).
    package static func run(_ input: [UInt8], host: InMemoryServerHost?,
                            transport: InMemoryServerConnection.Transport = .pair) throws -> Report {
        guard let first = input.first else { return Report(responses: [], closedByServer: false, rawOutput: []) }
        let bytes = Array(input.dropFirst())
        let connection: InMemoryServerConnection
        do {
            if let host {
                connection = try InMemoryServerConnection(host: host, transport: transport)
            } else {
                connection = try InMemoryServerConnection(configuration: configuration, router: router(), transport: transport)
            }
        } catch {
            throw Failure(description: "cannot set up the in-memory server: \(error)")
        }
        connection.send(bytes, inWritesOf: first == 0 ? max(bytes.count, 1) : Int(first))
        let outcome = connection.finish()
        // The HTTP/2 connection preface makes the server speak HTTP/2 (RFC 9113 §3.4): then its
        // output is frames, not HTTP/1.1, and only "no trap, no hang" is checked.
        if bytes.starts(with: http2Preface) {
            return Report(responses: [], closedByServer: outcome.closedByServer, rawOutput: outcome.output)
        }
        switch HTTP1ResponseStream.parse(outcome.output) {
        case .failure(let malformed):
            throw Failure(description: "server wrote malformed HTTP/1.1 at \(malformed); output: \(printable(outcome.output))")
        case .success(let responses):
            return Report(responses: responses, closedByServer: outcome.closedByServer, rawOutput: outcome.output)
        }
    }

    static let http2Preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)

    package static func printable(_ bytes: [UInt8]) -> String {
        String(decoding: bytes.prefix(400), as: UTF8.self).debugDescription
    }
}

import CPushLab
import Glibc

/// The HTTP/1.1 side of a connection (RFC 9112): keep-alive, Content-Length and chunked
/// request bodies, `Expect: 100-continue`, pipelined requests answered in order. Loop thread
/// only. One request is handled at a time; bytes of the next wait in the input buffer.
final class HTTP1Session {
    private enum Phase {
        case head
        case body(remaining: Int)
        case chunkSize
        case chunkData(remaining: Int)
        case chunkDataEnd
        case trailers
        /// A `.later` handler is running.
        case awaitingResponse
        /// A response asked for the connection to close; ignore further input.
        case closing
    }

    private struct PendingRequest {
        var method: String
        var target: String
        var minorVersion: Int
        var headers: HTTPHeaders
        var body: [UInt8] = []
        var keepAlive: Bool
    }

    unowned let connection: ServerConnection
    private var phase = Phase.head
    private var request: PendingRequest?
    private var draining = false

    init(connection: ServerConnection) { self.connection = connection }

    var isBusy: Bool {
        if case .head = phase { return false }
        return true
    }

    var isAwaitingResponse: Bool {
        if case .awaitingResponse = phase { return true }
        return false
    }

    private var limits: HTTPServerConfiguration { connection.configuration }

    // MARK: Input

    func receive(_ input: OpaquePointer) {
        while step(input) {}
    }

    func outputDrained() {}

    func drain() {
        draining = true
        if case .head = phase { connection.requestClose() }
    }

    func close() { request = nil }

    /// Parses as far as the buffered bytes allow; returns true if it should be called again.
    private func step(_ input: OpaquePointer) -> Bool {
        switch phase {
        case .awaitingResponse, .closing:
            return false
        case .head:
            return parseHead(input)
        case .body(let remaining):
            let count = min(remaining, evbuffer_get_length(input))
            guard count > 0 else { return false }
            take(input, count)
            if remaining == count { complete() } else { phase = .body(remaining: remaining - count) }
            return true
        case .chunkSize:
            guard let line = readLine(input, limit: 1024) else { return false }
            let digits = line.prefix { $0 != UInt8(ascii: ";") }.filter { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") }
            guard !digits.isEmpty, digits.count <= 15, let size = Int(String(decoding: digits, as: UTF8.self), radix: 16) else {
                return fail(400, "malformed chunk size")
            }
            if (request?.body.count ?? 0) + size > limits.maxRequestBodyBytes { return fail(413, nil) }
            phase = size == 0 ? .trailers : .chunkData(remaining: size)
            return true
        case .chunkData(let remaining):
            let count = min(remaining, evbuffer_get_length(input))
            guard count > 0 else { return false }
            take(input, count)
            phase = remaining == count ? .chunkDataEnd : .chunkData(remaining: remaining - count)
            return true
        case .chunkDataEnd:
            guard let line = readLine(input, limit: 2) else { return false }
            guard line.isEmpty else { return fail(400, "chunk data longer than its size") }
            phase = .chunkSize
            return true
        case .trailers:
            // Trailer fields are read and dropped (RFC 9112 §7.1.2 lets a recipient discard them).
            guard let line = readLine(input, limit: limits.maxHeaderListBytes) else { return false }
            if line.isEmpty { complete() }
            return true
        }
    }

    /// The next CRLF-terminated line without its CRLF, or nil if it has not fully arrived
    /// (a line longer than `limit` fails the connection).
    private func readLine(_ input: OpaquePointer, limit: Int) -> [UInt8]? {
        let found = evbuffer_search_eol(input, nil, nil, EVBUFFER_EOL_CRLF_STRICT)
        guard found.pos >= 0 else {
            if evbuffer_get_length(input) > limit + 2 { _ = fail(400, "line too long") }
            return nil
        }
        let length = found.pos
        var line = [UInt8](repeating: 0, count: length)
        if length > 0 { evbuffer_remove(input, &line, length) }
        evbuffer_drain(input, 2)
        return line
    }

    private func take(_ input: OpaquePointer, _ count: Int) {
        guard request != nil else { return }
        let start = request!.body.count
        request!.body.append(contentsOf: repeatElement(0, count: count))
        request!.body.withUnsafeMutableBufferPointer { buffer in
            _ = evbuffer_remove(input, buffer.baseAddress! + start, count)
        }
    }

    private func parseHead(_ input: OpaquePointer) -> Bool {
        // RFC 9112 §2.2: ignore empty lines before the request line.
        while evbuffer_get_length(input) >= 2, let p = evbuffer_pullup(input, 2), p[0] == 13, p[1] == 10 {
            evbuffer_drain(input, 2)
        }
        let end = "\r\n\r\n".withCString { evbuffer_search(input, $0, 4, nil) }
        let headLimit = limits.maxHeaderListBytes + 8192
        guard end.pos >= 0 else {
            if !looksLikeRequestLine(input) { return fail(400, "not an HTTP request") }
            if evbuffer_get_length(input) > headLimit { return fail(431, "request header block too large") }
            return false
        }
        if end.pos > headLimit { return fail(431, "request header block too large") }
        let length = end.pos + 4
        guard let raw = evbuffer_pullup(input, length) else { return false }
        let parsed = RequestHead.parse(UnsafeBufferPointer(start: raw, count: end.pos), maxHeaderListBytes: limits.maxHeaderListBytes)
        evbuffer_drain(input, length)
        switch parsed {
        case .failure(let status, let reason):
            return fail(status, reason)
        case .success(let head):
            connection.peerSpoke()
            request = PendingRequest(method: head.method, target: head.target, minorVersion: head.minorVersion,
                                     headers: head.headers, keepAlive: head.keepAlive)
            if head.chunked {
                phase = .chunkSize
            } else if head.contentLength > limits.maxRequestBodyBytes {
                return fail(413, nil)
            } else if head.contentLength > 0 {
                phase = .body(remaining: head.contentLength)
            } else {
                complete()
                return true
            }
            // RFC 9110 §10.1.1: tell a waiting client to send the body.
            if head.expectsContinue && head.minorVersion >= 1 {
                evbuffer_add(connection.output, Self.continueLine, Self.continueLine.count)
            }
            return true
        }
    }

    /// Garbage is refused as soon as it shows instead of after a full header block's worth:
    /// a request line starts with a method token (RFC 9110 §9.1: tchar) and a space. A prefix
    /// of one ("GE" of a request that arrives a few bytes at a time, or the CR of an empty line
    /// before it, RFC 9112 §2.2) may still become one, so it waits for more bytes.
    private func looksLikeRequestLine(_ input: OpaquePointer) -> Bool {
        let count = min(evbuffer_get_length(input), Self.longestMethod + 1)
        guard count > 0, let bytes = evbuffer_pullup(input, count) else { return true }
        if count == 1 && bytes[0] == 13 { return true }
        for index in 0..<count {
            let byte = bytes[index]
            if byte == UInt8(ascii: " ") { return index > 0 }
            if !RequestHead.isTokenCharacter(byte) { return false }
        }
        return count <= Self.longestMethod  // no space after 32 token characters: no method is that long here.
    }

    private static let longestMethod = 32

    private static let continueLine = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)

    /// Answers a malformed or refused request and closes: the stream position is unknown now.
    private func fail(_ status: Int, _ reason: String?) -> Bool {
        request?.keepAlive = false
        if request == nil {
            request = PendingRequest(method: "GET", target: "/", minorVersion: 1, headers: [:], keepAlive: false)
        }
        write(reason.map { .text(status, $0 + "\n") } ?? ServerResponse(status: status), close: true)
        return false
    }

    private func complete() {
        guard let pending = request else { return }
        var path = pending.target
        var query: String?
        if let mark = path.firstIndex(of: "?") {
            query = String(path[path.index(after: mark)...])
            path = String(path[..<mark])
        }
        let serverRequest = ServerRequest(method: pending.method, path: path, query: query, headers: pending.headers,
                                          body: pending.body, version: .http1_1, streamID: 0,
                                          connection: connection.context)
        request!.body = []
        phase = .awaitingResponse
        switch connection.core.dispatcher.dispatch(serverRequest) {
        case .respond(let response): respond(response)
        case .reset: connection.requestClose()
        case .pending: break
        }
    }

    // MARK: Output

    /// The response to the request in flight (from the dispatcher or a `.later` handler).
    func respond(_ response: ServerResponse) {
        guard case .awaitingResponse = phase, let pending = request else { return }
        let close = !pending.keepAlive || draining
        write(response, close: close)
        if !close {
            request = nil
            phase = .head
        }
    }

    /// A `.later` response: answer, then parse whatever the client pipelined meanwhile.
    func deliver(_ response: ServerResponse) {
        respond(response)
        if case .head = phase, let bev = connection.bev { receive(bufferevent_get_input(bev)) }
    }

    /// One `name: value` line of an answer's head. A name that is no token is dropped, and so
    /// are the framing fields the session writes itself.
    private static func appendField<Value: Collection>(_ name: String, _ value: Value, to bytes: inout [UInt8]) where Value.Element == UInt8 {
        // A token is ASCII, so ASCII case folding is `lowercased()`; a non-token name could fold
        // into one of these (U+212A KELVIN SIGN to "k") but is dropped either way.
        guard !name.isEmpty, name.utf8.allSatisfy(RequestHead.isTokenCharacter) else { return }
        if framingFields.contains(where: { RequestHead.equalsIgnoringASCIICase(name.utf8, $0) }) { return }
        bytes.append(contentsOf: name.utf8)
        bytes.append(UInt8(ascii: ":"))
        bytes.append(UInt8(ascii: " "))
        // A handler's CR or LF must never end the line early (response splitting);
        // RFC 9110 §5.5 lets them be replaced with SP.
        let start = bytes.count
        bytes.append(contentsOf: value)
        if holdsLineBreakOrNUL(bytes, from: start) {
            for index in start..<bytes.count where bytes[index] == 13 || bytes[index] == 10 || bytes[index] == 0 { bytes[index] = 32 }
        }
        bytes.append(13)
        bytes.append(10)
    }

    private func write(_ response: ServerResponse, close: Bool) {
        let isHead = request?.method == "HEAD"
        // The head is written as bytes (the same bytes a String built by interpolation gave,
        // without its appends and re-encoding per field).
        var bytes: [UInt8] = []
        bytes.reserveCapacity(128 + (isHead ? 0 : response.body.count))
        bytes.append(contentsOf: "HTTP/1.1 \(response.status) \(ReasonPhrase.for(response.status))\r\n".utf8)
        for field in response.headers { Self.appendField(field.name, field.value.utf8, to: &bytes) }
        for field in response.inlineHeaders { field.withValue { Self.appendField(field.name, $0, to: &bytes) } }
        bytes.append(contentsOf: "content-length: \(response.body.count)\r\n".utf8)
        if close { bytes.append(contentsOf: Self.connectionClose) }
        bytes.append(13)
        bytes.append(10)
        if !isHead { bytes.append(contentsOf: response.body) }
        evbuffer_add(connection.output, bytes, bytes.count)
        if close {
            phase = .closing
            request = nil
            connection.closeAfterFlush()
        }
    }

    /// Fields the session writes itself (RFC 9112 §6, §9.6); a handler's are dropped.
    private static let framingFields = ["content-length", "transfer-encoding", "connection", "keep-alive"].map { Array($0.utf8) }
    private static let connectionClose = Array("connection: close\r\n".utf8)

    /// Whether `bytes` from `start` hold a CR, LF or NUL (`memchr`: a value's bytes are not
    /// compared one by one).
    private static func holdsLineBreakOrNUL(_ bytes: [UInt8], from start: Int) -> Bool {
        bytes.withUnsafeBufferPointer { buffer in
            guard start < buffer.count, let base = buffer.baseAddress else { return false }
            let count = buffer.count - start
            return memchr(base + start, 13, count) != nil || memchr(base + start, 10, count) != nil || memchr(base + start, 0, count) != nil
        }
    }
}

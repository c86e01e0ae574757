import CPushLab
import Glibc

/// One TCP connection (TLS with ALPN h2, or h2c prior knowledge) and the nghttp2 client
/// session on it. Loop thread only: `NGHTTP2Loop` creates it, feeds it socket readiness and
/// closes it; nghttp2 calls back into the loop from `receive` and `flush` with this object as
/// session user data (unretained: the loop holds it until `close`).
final class NGHTTP2Connection {
    enum State { case connecting, handshaking, open, closed }

    let origin: NGHTTP2Origin
    /// The loop that owns this connection (it outlives every connection it opens).
    unowned(unsafe) let loop: NGHTTP2Loop
    let fd: Int32
    private(set) var ssl: OpaquePointer?
    private(set) var session: OpaquePointer?
    private(set) var state = State.connecting
    /// No new streams: GOAWAY received or stream ids spent. Streams already open finish.
    var goingAway = false
    /// Streams submitted and not yet closed.
    var openStreams = 0
    /// In the loop's list of connections to flush this turn.
    var queuedForFlush = false
    /// The epoll events currently asked for.
    var interest: UInt32 = 0

    let openedNanos: UInt64
    let connectDeadlineNanos: UInt64
    private(set) var connectNanos: UInt64 = 0
    private(set) var tlsNanos: UInt64 = 0

    // Bytes nghttp2 produced that the socket has not taken yet.
    private var output: UnsafeMutablePointer<UInt8>
    private var outputCapacity = 64 * 1024
    private var outputStart = 0
    private var outputEnd = 0

    /// Starts the TCP connect; nil with `error` when it failed at once (resolution, refusal).
    init?(origin: NGHTTP2Origin, loop: NGHTTP2Loop, nowNanos: UInt64, connectTimeout: Duration, error: inout String) {
        self.origin = origin
        self.loop = loop
        var text = [CChar](repeating: 0, count: 512)
        fd = cpl_h2c_connect(origin.host, Int32(origin.port), &text, text.count)
        guard fd >= 0 else {
            error = String(nulTerminated: text)
            return nil
        }
        openedNanos = nowNanos
        let timeout = connectTimeout.components
        connectDeadlineNanos = nowNanos &+ UInt64(max(0, timeout.seconds)) &* 1_000_000_000
            &+ UInt64(max(0, timeout.attoseconds / 1_000_000_000))
        output = .allocate(capacity: outputCapacity)
    }

    deinit {
        output.deallocate()
        if state != .closed { tearDown() }
    }

    var isPastConnecting: Bool { state == .open || state == .closed }

    /// Streams this connection may still start: the smaller of our limit and the server's
    /// SETTINGS_MAX_CONCURRENT_STREAMS (nghttp2 assumes 100 until the server's SETTINGS arrive).
    func freeStreams(ourLimit: Int) -> Int {
        guard state == .open, !goingAway, let session else { return 0 }
        let theirs = Int(nghttp2_session_get_remote_settings(session, NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS))
        return min(ourLimit, theirs) - openStreams
    }

    // MARK: connecting

    enum Progress {
        case waiting
        case ready
        case failed(HTTPClientError)
    }

    /// Advances the TCP connect and the TLS handshake after the socket became ready.
    func advance(tls: NGHTTP2TLSContext, callbacks: NGHTTP2ClientCallbacks, caFile: String?) -> Progress {
        var text = [CChar](repeating: 0, count: 512)
        if state == .connecting {
            let problem = cpl_h2c_connect_result(fd, &text, text.count)
            if problem == EINPROGRESS || problem == EALREADY { return .waiting }
            guard problem == 0 else {
                return .failed(.connectFailed("Failed to connect to \(origin.host) port \(origin.port): \(String(nulTerminated: text))"))
            }
            connectNanos = cpl_h2c_now_ns() &- openedNanos
            guard origin.tls else { return startSession(callbacks: callbacks) }
            guard let context = tls.context else { return .failed(tls.failure!) }
            guard let ssl = cpl_h2c_tls_new(context, fd, origin.host) else {
                return .failed(.tlsFailed("handshake failed: could not create a TLS connection"))
            }
            self.ssl = ssl
            state = .handshaking
        }
        guard state == .handshaking, let ssl else { return .ready }
        var verdict = 0
        switch cpl_h2c_tls_handshake(ssl, &verdict, &text, text.count) {
        case 1:
            tlsNanos = cpl_h2c_now_ns() &- openedNanos &- connectNanos
            guard cpl_h2c_alpn_is_h2(ssl) != 0 else {
                return .failed(.protocolError("\(origin.host):\(origin.port) did not choose HTTP/2 in the TLS handshake (ALPN h2); "
                    + "this transport speaks only HTTP/2: use --transport curl for an HTTP/1.1 server"))
            }
            return startSession(callbacks: callbacks)
        case 0:
            interest = UInt32(EPOLLIN.rawValue)
            return .waiting
        case 2:
            interest = UInt32(EPOLLOUT.rawValue)
            return .waiting
        default:
            let detail = String(nulTerminated: text)
            if verdict != 0 { return .failed(.untrustedCertificate(detail: detail, caFile: caFile)) }
            return .failed(.tlsFailed("handshake failed: \(detail)"))
        }
    }

    private func startSession(callbacks: NGHTTP2ClientCallbacks) -> Progress {
        var session: OpaquePointer?
        guard nghttp2_session_client_new(&session, callbacks.callbacks, Unmanaged.passUnretained(self).toOpaque()) == 0,
              let session else {
            return .failed(.protocolError("nghttp2 could not create a client session"))
        }
        self.session = session
        // No server push; large windows so big downloads are not throttled to 64 KiB per round trip.
        var settings = [
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_ENABLE_PUSH.rawValue), value: 0),
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE.rawValue), value: NGHTTP2Connection.streamWindow),
        ]
        nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), &settings, settings.count)
        nghttp2_session_set_local_window_size(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), 0, NGHTTP2Connection.connectionWindow)
        state = .open
        return .ready
    }

    static let streamWindow: UInt32 = 1 << 24
    static let connectionWindow: Int32 = 1 << 26

    // MARK: streams

    /// Submits `exchange` as a new stream; the stream id, or a negative nghttp2 error.
    func submit(_ exchange: NGHTTP2Exchange, headers: UnsafePointer<nghttp2_nv>, count: Int) -> Int32 {
        let user = Unmanaged.passUnretained(exchange).toOpaque()
        let request = exchange.submission.request
        if request.body.isEmpty {
            return nghttp2_submit_request(session, nil, headers, count, nil, user)
        }
        var provider = nghttp2_data_provider()
        provider.source.ptr = user
        provider.read_callback = { _, _, buffer, length, flags, source, _ in
            let exchange = Unmanaged<NGHTTP2Exchange>.fromOpaque(source!.pointee.ptr!).takeUnretainedValue()
            return exchange.readBody(into: buffer!, length: length, flags: flags!)
        }
        return nghttp2_submit_request(session, nil, headers, count, &provider, user)
    }

    /// Resets a stream the client gave up on (timeout, cancellation, size limit). The exchange
    /// is detached from the stream first, so nghttp2's later callbacks for it find nothing.
    func reset(streamID: Int32, code: HTTP2ErrorCode) {
        guard let session, streamID > 0 else { return }
        nghttp2_session_set_stream_user_data(session, streamID, nil)
        nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), streamID, code.rawValue)
    }

    // MARK: I/O

    enum IOResult { case ok, closed(String) }

    /// Reads everything the socket has and feeds it to nghttp2 (callbacks run from here).
    func receive(buffer: UnsafeMutableRawBufferPointer) -> IOResult {
        guard let session else { return .ok }
        while true {
            let got = cpl_h2c_read(ssl, fd, buffer.baseAddress, buffer.count)
            if got == -1 { return .ok }
            if got == 0 { return .closed("the server closed the connection") }
            if got < 0 { return .closed("reading from the connection failed: \(String(cString: strerror(errno)))") }
            let consumed = nghttp2_session_mem_recv(session, buffer.baseAddress!.assumingMemoryBound(to: UInt8.self), got)
            if consumed < 0 {
                return .closed("HTTP/2 framing error from the server: \(String(cString: nghttp2_strerror(Int32(consumed))))")
            }
            if got < buffer.count && ssl == nil { return .ok }
        }
    }

    /// Writes what nghttp2 has to send (and what the socket refused before). `.ok` with bytes
    /// left means the socket is full: ask for EPOLLOUT (see `wantsWritable`).
    func flush() -> IOResult {
        guard let session else { return .ok }
        while true {
            if outputStart < outputEnd {
                let sent = cpl_h2c_write(ssl, fd, output + outputStart, outputEnd - outputStart)
                if sent == -1 { return .ok }
                if sent < 0 { return .closed("writing to the connection failed: \(String(cString: strerror(errno)))") }
                outputStart += sent
                if outputStart < outputEnd { continue }
                outputStart = 0
                outputEnd = 0
            }
            // Gather frames into one buffer: fewer, fuller TLS records and system calls.
            while outputEnd < 256 * 1024 {
                var data: UnsafePointer<UInt8>?
                let length = nghttp2_session_mem_send(session, &data)
                if length < 0 { return .closed("HTTP/2 error: \(String(cString: nghttp2_strerror(Int32(length))))") }
                if length == 0 { break }
                if outputEnd + length > outputCapacity {
                    let bigger = UnsafeMutablePointer<UInt8>.allocate(capacity: max(outputCapacity * 2, outputEnd + length))
                    bigger.update(from: output, count: outputEnd)
                    output.deallocate()
                    output = bigger
                    outputCapacity = max(outputCapacity * 2, outputEnd + length)
                }
                (output + outputEnd).update(from: data!, count: length)
                outputEnd += length
            }
            if outputEnd == 0 { return .ok }
        }
    }

    var wantsWritable: Bool { outputStart < outputEnd }

    /// Both sides are done with the session (a GOAWAY exchanged and every stream closed).
    var isFinished: Bool {
        guard let session else { return false }
        return nghttp2_session_want_read(session) == 0 && nghttp2_session_want_write(session) == 0 && !wantsWritable
    }

    /// A polite end: GOAWAY(NO_ERROR), flushed if the socket takes it now.
    func sayGoodbye() {
        guard let session, state == .open else { return }
        nghttp2_session_terminate_session(session, NGHTTP2_NO_ERROR.rawValue)
        _ = flush()
    }

    /// Closes the socket and frees TLS and the session. nghttp2 calls nothing back from here.
    func close() {
        guard state != .closed else { return }
        tearDown()
    }

    private func tearDown() {
        state = .closed
        if let session { nghttp2_session_del(session) }
        session = nil
        if let ssl { SSL_free(ssl) }
        ssl = nil
        Glibc.close(fd)
    }
}

import CPushLab
import Foundation

/// One accepted connection: its bufferevent, which protocol it speaks, its idle timer.
/// Loop thread only. The core's `connections` table owns it; C callbacks get an unretained
/// pointer, which stays valid because the bufferevent and timer are freed before the table
/// lets go of the object.
///
/// Closing is deferred to the end of the current event (`finishEvent`) because nghttp2 must
/// never be deleted from inside one of its own callbacks.
final class ServerConnection {
    enum ProtocolState {
        /// Cleartext: waiting for enough bytes to tell the h2 preface from HTTP/1.1.
        /// TLS: waiting for the handshake (ALPN decides).
        case undecided
        case http2(HTTP2Session)
        case http1(HTTP1Session)
    }

    let id: UInt64
    unowned(unsafe) let core: ServerCore  // the core owns every connection and outlives it
    let context: ConnectionContext
    private(set) var bev: OpaquePointer?
    private(set) var state: ProtocolState = .undecided
    /// Set when something was queued for the peer outside a bufferevent callback.
    var needsFlush = false
    /// Close once the output buffer drained (after a GOAWAY, an HTTP/1.1 `Connection: close`).
    private var closeWhenFlushed = false
    private var closeRequested = false
    /// Reading stopped because the peer is not reading our output (see `throttleIfBacklogged`).
    private var readPaused = false
    private var idleTimer: OpaquePointer?
    /// Cleartext only: the read event that replaces the bufferevent's (see `start`).
    private var socketReadEvent: OpaquePointer?
    /// Pending until the peer has spoken (see `HTTPServerConfiguration.handshakeTimeout`).
    private var handshakeTimer: OpaquePointer?
    /// Set while lingering after a graceful close (see `linger`).
    private var lingerTimer: OpaquePointer?
    private var lastActivity = timeval()
    /// Stop generating output above this many queued bytes; resume when the peer drained it.
    static let outputHighWater = 1 << 20
    /// Copied from the configuration at accept: read on every readable event.
    private let tracksIdleness: Bool
    /// Cleartext on a real socket: we read and write the socket ourselves (see `start`). False
    /// for TLS and for a socketless bufferevent (`InMemoryServerConnection`'s pair), which go
    /// through the bufferevent's own reading and writing.
    private let usesSocketDirectly: Bool

    init(id: UInt64, core: ServerCore, bev: OpaquePointer, context: ConnectionContext) {
        self.id = id
        self.core = core
        self.bev = bev
        self.context = context
        self.tracksIdleness = core.configuration.idleTimeout != nil
        self.usesSocketDirectly = !context.isTLS && bufferevent_getfd(bev) >= 0
    }

    var isTLS: Bool { context.isTLS }
    var output: OpaquePointer { bufferevent_get_output(bev!) }
    var configuration: HTTPServerConfiguration { core.configuration }

    func start() {
        let context = Unmanaged.passUnretained(self).toOpaque()
        bufferevent_setcb(bev, { _, context in
            Unmanaged<ServerConnection>.fromOpaque(context!).takeUnretainedValue().readable()
        }, { _, context in
            Unmanaged<ServerConnection>.fromOpaque(context!).takeUnretainedValue().drained()
        }, { _, events, context in
            Unmanaged<ServerConnection>.fromOpaque(context!).takeUnretainedValue().event(events)
        }, context)
        bufferevent_set_max_single_read(bev, 256 << 10)
        bufferevent_set_max_single_write(bev, 256 << 10)
        if !usesSocketDirectly {
            bufferevent_enable(bev, Int16(EV_READ | EV_WRITE))
        } else {
            // Cleartext: libevent 2.1's socket bufferevent reads at most 4 KiB per wake-up
            // (EVBUFFER_MAX_READ) after an FIONREAD ioctl, and writes only on the next loop
            // iteration after toggling EV_WRITE in epoll. At h2load's rates that tripled the
            // syscalls per request; so we read 64 KiB at a time ourselves and write right
            // after processing, leaving the bufferevent only the leftovers of a short write.
            bufferevent_disable(bev, Int16(EV_READ | EV_WRITE))
            // A socket bufferevent freezes the end of its input buffer for everyone but itself.
            evbuffer_unfreeze(bufferevent_get_input(bev), 0)
            socketReadEvent = event_new(core.loop.base, bufferevent_getfd(bev), Int16(EV_READ | EV_PERSIST), { _, _, context in
                Unmanaged<ServerConnection>.fromOpaque(context!).takeUnretainedValue().socketReadable()
            }, context)
            event_add(socketReadEvent, nil)
        }
        if let idle = configuration.idleTimeout {
            event_base_gettimeofday_cached(core.loop.base, &lastActivity)
            idleTimer = event_new(core.loop.base, -1, 0, { _, _, context in
                Unmanaged<ServerConnection>.fromOpaque(context!).takeUnretainedValue().idleTimerFired()
            }, context)
            var timeout = timeval(duration: idle)
            event_add(idleTimer, &timeout)
        }
        if let limit = configuration.handshakeTimeout {
            handshakeTimer = event_new(core.loop.base, -1, 0, { _, _, context in
                // Not spoken in time (half-open, slowloris): nothing to answer, just close.
                Unmanaged<ServerConnection>.fromOpaque(context!).takeUnretainedValue().closeNow()
            }, context)
            var timeout = timeval(duration: limit)
            event_add(handshakeTimer, &timeout)
        }
    }

    /// The peer sent a complete request head (HTTP/1.1) or a frame (HTTP/2): the handshake
    /// deadline no longer applies. Cheap after the first call.
    func peerSpoke() {
        guard let timer = handshakeTimer else { return }
        event_free(timer)
        handshakeTimer = nil
    }

    // MARK: Events

    private func readable() {
        guard let bev else { return }
        if lingerTimer != nil {
            let input = bufferevent_get_input(bev)
            evbuffer_drain(input, evbuffer_get_length(input))
            return
        }
        if tracksIdleness { event_base_gettimeofday_cached(core.loop.base, &lastActivity) }
        let input = bufferevent_get_input(bev)!
        if case .undecided = state { decideProtocol(input: input) }
        switch state {
        case .undecided: break
        case .http2(let session): session.receive(input)
        case .http1(let session): session.receive(input)
        }
        finishEvent()
    }

    /// Cleartext only: one read of up to 64 KiB straight into the input buffer.
    private func socketReadable() {
        guard let bev else { return }
        let input = bufferevent_get_input(bev)
        var space = iovec()
        guard evbuffer_reserve_space(input, Self.readChunk, &space, 1) >= 1 else {
            closeNow()  // Out of memory; never leave a readable socket unread (epoll would spin).
            return
        }
        let count = recv(bufferevent_getfd(bev), space.iov_base, min(space.iov_len, Self.readChunk), 0)
        if count > 0 {
            space.iov_len = count
            evbuffer_commit_space(input, &space, 1)
            readable()
        } else if count == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
            closeNow()  // EOF or a reset: nothing more can be said on this connection.
        }
    }

    private static let readChunk = 64 << 10

    private func drained() {
        if usesSocketDirectly, let bev { bufferevent_disable(bev, Int16(EV_WRITE)) }
        switch state {
        case .http2: needsFlush = true
        case .http1(let session): session.outputDrained()
        case .undecided: break
        }
        if readPaused, !closeRequested, !closeWhenFlushed {
            readPaused = false
            setReading(true)
        }
        finishEvent()
    }

    private func event(_ events: Int16) {
        if events & Int16(BEV_EVENT_CONNECTED) != 0 {
            // TLS handshake done: ALPN picks the protocol (RFC 7301; RFC 9113 §3.2). A client that
            // offered no ALPN (aioapns does this, and APNs accepts it) is told apart by its first
            // bytes, as on cleartext.
            if case .undecided = state, let bev, let ssl = bufferevent_openssl_get_ssl(bev) {
                if configuration.clientCertificateCAFile != nil { context.setPeerCertificate(PeerCertificate(ssl: ssl)) }
                switch cpl_server_alpn_protocol(ssl) {
                case 2: becomeHTTP2()
                case 1: becomeHTTP1()
                default: break
                }
            }
            finishEvent()
            return
        }
        // EOF, a reset, a failed TLS handshake: nothing more can be said on this connection.
        closeNow()
    }

    private func idleTimerFired() {
        guard let idle = configuration.idleTimeout, bev != nil else { return }
        var now = timeval()
        event_base_gettimeofday_cached(core.loop.base, &now)
        let idleFor = Duration.seconds(now.tv_sec - lastActivity.tv_sec) + .microseconds(now.tv_usec - lastActivity.tv_usec)
        if idleFor >= idle && !hasActiveRequests {
            // APNs-style: tell the peer why before closing (RFC 9113 §6.8 debug data).
            goAway(errorCode: HTTP2ErrorCode.noError.rawValue, debugData: configuration.idleGoAwayDebugData)
            finishEvent()
            return
        }
        var timeout = timeval(duration: idleFor >= idle ? idle : idle - idleFor)
        event_add(idleTimer, &timeout)
    }

    /// For `InMemoryServerConnection`: an HTTP/1.1 `.later` answer is outstanding; the
    /// connection is closed or closing.
    var awaitsLaterResponse: Bool {
        if case .http1(let session) = state { return session.isAwaitingResponse }
        return false
    }
    var isClosing: Bool { bev == nil || closeRequested || closeWhenFlushed }

    private var hasActiveRequests: Bool {
        switch state {
        case .undecided: return false
        case .http2(let session): return session.hasActiveStreams
        case .http1(let session): return session.isBusy
        }
    }

    // MARK: Protocol selection

    private static let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)

    /// Cleartext, or TLS without ALPN: the HTTP/2 client preface means h2, anything else HTTP/1.1.
    private func decideProtocol(input: OpaquePointer) {
        let available = min(evbuffer_get_length(input), Self.preface.count)
        guard available > 0, let bytes = evbuffer_pullup(input, available) else { return }
        let matches = (0..<available).allSatisfy { bytes[$0] == Self.preface[$0] }
        if !matches {
            becomeHTTP1()
        } else if available == Self.preface.count {
            becomeHTTP2()
        }
        // else: a prefix of the preface so far; wait for more bytes.
    }

    private func becomeHTTP2() {
        let session = HTTP2Session(connection: self)
        state = .http2(session)
        session.sendServerPreface()
        needsFlush = true
    }

    private func becomeHTTP1() {
        state = .http1(HTTP1Session(connection: self))
    }

    // MARK: Output and closing

    /// Ends every event on this connection: writes what the protocol queued, closes if asked.
    func finishEvent() {
        needsFlush = false
        // HTTP/2 output is generated up to a high-water mark; on cleartext a direct write may
        // empty the buffer at once, so generate again while nghttp2 has more (a few rounds,
        // then let a write-readiness callback continue, keeping one event short).
        for _ in 0..<8 {
            if !closeRequested, case .http2(let session) = state {
                switch session.flush() {
                case .open: break
                case .finished: closeWhenFlushed = true
                case .failed: closeRequested = true
                }
            }
            guard !closeRequested, usesSocketDirectly, let bev else { break }
            writeDirectly(bev)
            guard !closeRequested, evbuffer_get_length(bufferevent_get_output(bev)) == 0,
                  case .http2(let session) = state, session.stoppedAtHighWater else { break }
        }
        if !closeRequested, usesSocketDirectly, let bev, case .http2(let session) = state, session.stoppedAtHighWater,
           evbuffer_get_length(bufferevent_get_output(bev)) == 0 {
            bufferevent_enable(bev, Int16(EV_WRITE))  // `drained` resumes generating output.
        }
        if closeRequested {
            closeNow()
        } else if closeWhenFlushed, lingerTimer == nil, let bev, evbuffer_get_length(bufferevent_get_output(bev)) == 0 {
            linger(bev)
        }
    }

    /// Cleartext: writes the output buffer now instead of on the next loop iteration; what the
    /// socket does not take is left to the bufferevent (`drained` follows).
    private func writeDirectly(_ bev: OpaquePointer) {
        let output = bufferevent_get_output(bev)!
        guard evbuffer_get_length(output) > 0 else { return }
        // The socket bufferevent freezes the start of its output for everyone but its own
        // write callback, which thaws it the same way around each write.
        evbuffer_unfreeze(output, 1)
        errno = 0
        let written = evbuffer_write(output, bufferevent_getfd(bev))
        let failure = errno
        evbuffer_freeze(output, 1)
        if written < 0 && failure != EAGAIN && failure != EWOULDBLOCK && failure != EINTR {
            closeRequested = true  // EPIPE, ECONNRESET: the peer is gone.
        } else if evbuffer_get_length(output) > 0 {
            bufferevent_enable(bev, Int16(EV_WRITE))
        }
    }

    /// A graceful close: send FIN but keep reading (and discarding) until the peer closes too,
    /// or `lingerTime` passes. Closing at once would make the kernel answer the peer's late
    /// frames (a SETTINGS ACK, a WINDOW_UPDATE) with a TCP RST, which can destroy our GOAWAY
    /// or last response before the peer read it.
    private func linger(_ bev: OpaquePointer) {
        let context = Unmanaged.passUnretained(self).toOpaque()
        lingerTimer = event_new(core.loop.base, -1, 0, { _, _, context in
            Unmanaged<ServerConnection>.fromOpaque(context!).takeUnretainedValue().closeNow()
        }, context)
        var timeout = timeval(duration: Self.lingerTime)
        event_add(lingerTimer, &timeout)
        shutdown(bufferevent_getfd(bev), Int32(SHUT_WR))
        setReading(true)
    }

    /// Starts or stops reading from the peer (TLS: through the bufferevent; cleartext: our
    /// own read event).
    private func setReading(_ enabled: Bool) {
        if let socketReadEvent {
            if enabled { event_add(socketReadEvent, nil) } else { event_del(socketReadEvent) }
        } else if let bev {
            if enabled { bufferevent_enable(bev, Int16(EV_READ)) } else { bufferevent_disable(bev, Int16(EV_READ)) }
        }
    }

    static let lingerTime = Duration.seconds(2)

    /// Backpressure: stop reading while the peer is not reading our output.
    func throttleIfBacklogged() {
        guard let bev else { return }
        if !readPaused, evbuffer_get_length(bufferevent_get_output(bev)) > Self.outputHighWater {
            readPaused = true
            setReading(false)
        }
    }

    /// Close after everything queued so far has been written; stop reading now.
    func closeAfterFlush() {
        closeWhenFlushed = true
        setReading(false)
    }

    /// Graceful stop: finish in-flight requests, accept no new ones.
    func drain() {
        if lingerTimer != nil {
            closeNow()
            return
        }
        switch state {
        case .undecided: closeRequested = true
        case .http2(let session): session.goAway(errorCode: HTTP2ErrorCode.noError.rawValue, debugData: [])
        case .http1(let session): session.drain()
        }
        finishEvent()
    }

    /// The answer of a `.later` handler, back on the loop thread.
    func deliver(streamID: Int32, _ response: ServerResponse) {
        switch state {
        case .http2(let session): session.deliver(streamID: streamID, response)
        case .http1(let session): session.deliver(response)
        case .undecided: return
        }
        needsFlush = true
    }

    func updateSettings(_ settings: HTTP2Settings) {
        guard case .http2(let session) = state else { return }
        session.submitSettings(settings)
        needsFlush = true
    }

    func goAway(errorCode: UInt32, debugData: [UInt8]) {
        switch state {
        case .undecided: closeRequested = true
        case .http2(let session): session.goAway(errorCode: errorCode, debugData: debugData)
        case .http1(let session): session.drain()
        }
        needsFlush = true
    }

    /// Frees the bufferevent (closing the socket) and the protocol session, now. Must not be
    /// called from inside an nghttp2 callback; use `requestClose()` there.
    func closeNow() {
        guard let bev else { return }
        if let socketReadEvent { event_free(socketReadEvent) }
        socketReadEvent = nil
        bufferevent_free(bev)
        self.bev = nil
        if let idleTimer { event_free(idleTimer) }
        idleTimer = nil
        peerSpoke()
        if let lingerTimer { event_free(lingerTimer) }
        lingerTimer = nil
        if case .http2(let session) = state { session.close() }
        if case .http1(let session) = state { session.close() }
        state = .undecided
        core.connectionClosed(id)
    }

    /// Asks for a close at the end of the current event.
    func requestClose() {
        closeRequested = true
        needsFlush = true
    }
}

import CPushLab

/// The server's real connection code (`ServerConnection` → `HTTP1Session`/`HTTP2Session` →
/// `RequestHead` → `RequestDispatcher` → the router's handlers) on one end of a libevent
/// bufferevent pair: no socket, no listener, no loop thread. The calling thread runs the event
/// loop. For the HTTP/1.1 request-parser fuzz target (Fuzz/FuzzHTTP1) and the regression tests
/// that replay its inputs; servers for real peers are `HTTPServer`.
///
/// Two transports (`Transport`): the server's end of a libevent bufferevent pair, whose
/// deferred callbacks the event loop runs (`.pair`), or a socketless bufferevent whose read and
/// write callbacks this class calls itself, in the order the pair's loop would (`.direct`, no
/// loop iteration per write: the fuzz target spent 40% of its time in `epoll_wait`).
///
/// One thread only, and one connection per instance: feed bytes with `send(_:)`, then read
/// everything the server wrote with `finish()`. Made with `init(configuration:router:)` the
/// connection has its own event base, freed by `finish()`; made with `init(host:)` it is one of
/// many connections, one after another, served by a long-lived `InMemoryServerHost` (the fuzz
/// target's: an event base, an eventfd and a core per input were a third of its time), and
/// `finish()` frees only the connection and the pair.
package final class InMemoryServerConnection {
    /// How the client's bytes reach the server and its answer comes back.
    package enum Transport: Sendable {
        /// A bufferevent pair with deferred callbacks: every write and every answer is an event
        /// the loop delivers (`event_base_loop`, one `epoll_wait` per iteration), as on a socket.
        case pair
        /// The server's end is a bufferevent without a socket. `send` appends the bytes to its
        /// input and calls its read callback (what the loop does when a socket turns readable);
        /// what the server writes is taken out of its output at once (as the pair moves it to
        /// the client), and its write callback runs after the event that wrote, as the pair's
        /// deferred one does. Bytes sent while the server does not read wait, as in the pair's
        /// client output. The loop runs only for events of its own (a `.later` answer's eventfd).
        /// HTTP1InMemoryExchangeTests checks that both give the same bytes.
        case direct
    }

    /// What the server did with the bytes it was sent.
    package struct Outcome: Sendable {
        /// Every byte the server wrote, in order.
        package var output: [UInt8]
        /// The server closed (or started closing) the connection before `finish()`.
        package var closedByServer: Bool
    }

    private let host: InMemoryServerHost
    /// The connection owns `host` (made for it alone) and frees it in `finish()`.
    private let ownsHost: Bool
    private var loop: ServerEventLoop { host.loop }
    private var core: ServerCore { host.core }
    private let connectionID: UInt64
    /// `.direct`: the served connection, without a table lookup per write (the core's only
    /// one: it is in the table while the core has an open connection). Released by `finish()`.
    /// Not weak: a weak reference gives the object a side table, which slows every retain and
    /// release of it, the server's own included.
    /// The state below is touched on every write (`.direct`): one thread only, and no access to
    /// it overlaps another (the server's output callback, `take(from:)`, runs inside a trigger,
    /// outside any access here), so the run-time exclusivity checks are left out (they were a
    /// twentieth of the fuzz target's time).
    @exclusivity(unchecked) private var served: ServerConnection?
    private let transport: Transport
    /// The client's end of the pair; the server's end belongs to the connection. `.direct`: nil.
    private var client: OpaquePointer?
    @exclusivity(unchecked) private var output: [UInt8] = []
    @exclusivity(unchecked) private var finished = false
    /// `.direct`: bytes sent that the server has not been given yet (it was not reading).
    @exclusivity(unchecked) private var unread: [UInt8] = []
    /// `.direct`: the server wrote since its write callback last ran.
    @exclusivity(unchecked) private var wrote = false

    /// Fails like `HTTPServer.start()` would for a bad configuration; nothing is bound (the
    /// core runs as a worker loop, which never listens).
    package convenience init(configuration: HTTPServerConfiguration, router: Router, isTLS: Bool = false,
                             transport: Transport = .pair) throws(HTTPServerError) {
        let host = try InMemoryServerHost(configuration: configuration, router: router)
        try self.init(host: host, ownsHost: true, isTLS: isTLS, transport: transport)
    }

    /// A connection to `host`, which must have no open connection (the previous one finished).
    package convenience init(host: InMemoryServerHost, isTLS: Bool = false, transport: Transport = .pair) throws(HTTPServerError) {
        precondition(host.core.openConnectionCount == 0, "InMemoryServerHost: the previous connection was not finished")
        try self.init(host: host, ownsHost: false, isTLS: isTLS, transport: transport)
    }

    private init(host: InMemoryServerHost, ownsHost: Bool, isTLS: Bool, transport: Transport) throws(HTTPServerError) {
        self.transport = transport
        if transport == .direct {
            // No socket (fd -1): the bufferevent never reads or writes by itself, and its
            // callbacks run only when `settleDirect` calls them (no deferral: nothing else
            // calls them). Options 0: the server's code is never run from inside a write.
            guard let server = bufferevent_socket_new(host.loop.base, -1, 0) else {
                if ownsHost { host.finish() }
                throw .eventLoopFailed("bufferevent_socket_new failed")
            }
            // A socket bufferevent freezes the end of its input and the start of its output for
            // everyone but its own socket reads and writes, which this one never does: these
            // are the "socket" side here.
            evbuffer_unfreeze(bufferevent_get_input(server), 0)
            evbuffer_unfreeze(bufferevent_get_output(server), 1)
            self.host = host
            self.ownsHost = ownsHost
            client = nil
            // Adopting writes nothing (the protocol is decided by the first bytes read).
            let connection = host.core.adopt(server, isTLS: isTLS, remoteAddress: "127.0.0.1:40000")
            connectionID = connection.id
            served = connection
            // What the server writes leaves its output at once, as the pair moves it to the
            // client (so a close right after a write loses nothing here either).
            evbuffer_add_cb(bufferevent_get_output(server), { buffer, info, context in
                guard let buffer, let info, info.pointee.n_added > 0 else { return }
                Unmanaged<InMemoryServerConnection>.fromOpaque(context!).takeUnretainedValue().take(from: buffer)
            }, Unmanaged.passUnretained(self).toOpaque())
            settle()
            return
        }
        var pair: [OpaquePointer?] = [nil, nil]
        // Deferred callbacks: the server's callbacks run from the loop, as a socket's do,
        // never from inside the other end's write.
        guard bufferevent_pair_new(host.loop.base, Int32(BEV_OPT_DEFER_CALLBACKS.rawValue), &pair) == 0,
              let server = pair[0], let client = pair[1] else {
            if ownsHost { host.finish() }
            throw .eventLoopFailed("bufferevent_pair_new failed")
        }
        self.host = host
        self.ownsHost = ownsHost
        self.client = client
        // Reading enabled on the client's end so the server's output moves into its input.
        bufferevent_enable(client, Int16(EV_READ | EV_WRITE))
        connectionID = host.core.adopt(server, isTLS: isTLS, remoteAddress: "127.0.0.1:40000").id
        settle()
    }

    /// Writes `bytes` as the client and runs the loop until the server has nothing left to do
    /// (waiting for a `.later` handler's answer on HTTP/1.1).
    package func send(_ bytes: [UInt8]) { send(bytes[...]) }

    /// `send(_:)` of a part of an array (no copy per write).
    package func send(_ bytes: ArraySlice<UInt8>) {
        guard !finished, !bytes.isEmpty else { return }
        bytes.withUnsafeBufferPointer { write($0) }
    }

    /// `send(_:)` of every `size` bytes of `bytes` in turn (the last write may be shorter): the
    /// fuzz target's writes, without a slice of the array per write.
    package func send(_ bytes: [UInt8], inWritesOf size: Int) {
        precondition(size > 0, "a write holds at least one byte")
        guard !finished else { return }
        bytes.withUnsafeBufferPointer { buffer in
            var start = 0
            while start < buffer.count {
                let end = min(start + size, buffer.count)
                write(UnsafeBufferPointer(rebasing: buffer[start..<end]))
                start = end
            }
        }
    }

    /// One write of the client (not empty).
    private func write(_ bytes: UnsafeBufferPointer<UInt8>) {
        if transport == .direct {
            // Straight into the server's input when it reads (no copy into `unread` and out).
            return settleDirect(sending: bytes)
        }
        guard let client else { return }
        _ = bufferevent_write(client, bytes.baseAddress, bytes.count)
        settle()
    }

    /// Everything the server wrote; frees the connection and the pair, and the event base when
    /// the connection has its own.
    package func finish() -> Outcome {
        guard !finished else { return Outcome(output: output, closedByServer: true) }
        settle()
        let closed = core.connection(connectionID)?.isClosing ?? true
        collectOutput()
        finished = true
        served = nil
        if transport == .direct {
            // Nothing the server wrote stays behind (`take`); bytes it never read are dropped,
            // as the pair's client output is.
            unread = []
        }
        if ownsHost {
            if let client { bufferevent_free(client) }
            client = nil
            host.finish()
        } else {
            // The server's end first (as the host's teardown does), then the client's; then
            // whatever the close left pending, so nothing of this connection reaches the next.
            core.connection(connectionID)?.closeNow()
            if let client { bufferevent_free(client) }
            client = nil
            while loop.hasActiveEvents { loop.runOnce(blocking: false) }
            precondition(core.openConnectionCount == 0, "InMemoryServerHost: a connection outlived its finish()")
        }
        return Outcome(output: output, closedByServer: closed)
    }

    deinit {
        if !finished { _ = finish() }
    }

    /// Loop iterations until no event is pending. A `.later` handler answers from another
    /// thread through the loop's eventfd, so while one is outstanding the loop blocks for it
    /// (a handler that never answers hangs here, which a fuzzer reports as a timeout).
    private func settle() {
        if transport == .direct { return settleDirect() }
        var rounds = 0
        while true {
            loop.runOnce(blocking: false)
            collectOutput()
            if loop.hasActiveEvents { rounds += 1 } else if core.connection(connectionID)?.awaitsLaterResponse == true {
                loop.runOnce(blocking: true)
            } else {
                return
            }
            // Every round consumes input or produces output; thousands without rest is a livelock.
            precondition(rounds < 100_000, "the server's event loop never went quiet")
        }
    }

    /// `.direct`: what the pair's loop would do, without its iterations. Give the server the
    /// waiting bytes (`unread`, then `sent`) if it reads (its read callback, as the pair's
    /// deferred one after a transfer), then run its write callback if it wrote (the pair's
    /// deferred "drained"), and the loop only when an event of its own is active or a `.later`
    /// answer is awaited. Bytes of `sent` the server has not read when it settles wait in
    /// `unread`; once the connection is gone nothing reads them (`finish()` drops them).
    private func settleDirect(sending sent: UnsafeBufferPointer<UInt8> = .init(start: nil, count: 0)) {
        // The core drops it from its table when it closes; from then on it counts as gone.
        guard let connection = core.openConnectionCount > 0 ? served : nil else {
            while loop.hasActiveEvents { loop.runOnce(blocking: false) }
            wrote = false
            return
        }
        var rounds = 0
        var sent = sent
        while true {
            let server = connection.bev
            if let server, !sent.isEmpty || !unread.isEmpty, bufferevent_get_enabled(server) & Int16(EV_READ) != 0 {
                let input = bufferevent_get_input(server)
                if !unread.isEmpty {
                    evbuffer_add(input, unread, unread.count)
                    unread.removeAll(keepingCapacity: true)
                }
                if !sent.isEmpty {
                    evbuffer_add(input, sent.baseAddress, sent.count)
                    sent = .init(start: nil, count: 0)
                }
                bufferevent_trigger(server, Int16(EV_READ), 0)
            } else if let server, wrote {
                wrote = false
                bufferevent_trigger(server, Int16(EV_WRITE), 0)
            } else if loop.hasActiveEvents {
                loop.runOnce(blocking: false)
            } else if connection.awaitsLaterResponse {
                loop.runOnce(blocking: true)
            } else {
                wrote = false
                if !sent.isEmpty, server != nil { unread.append(contentsOf: sent) }
                return
            }
            rounds += 1
            precondition(rounds < 100_000, "the server's event loop never went quiet")
        }
    }

    /// `.direct`: the server's output callback: everything it wrote, out of its buffer.
    private func take(from buffer: OpaquePointer) {
        if drain(buffer) { wrote = true }
    }

    private func collectOutput() {
        guard let client, let input = bufferevent_get_input(client) else { return }
        drain(input)
    }

    /// Moves every byte of `buffer` to the end of `output`; false when it held none.
    @discardableResult
    private func drain(_ buffer: OpaquePointer) -> Bool {
        let count = evbuffer_get_length(buffer)
        guard count > 0 else { return false }
        let start = output.count
        output.append(contentsOf: repeatElement(0, count: count))
        output.withUnsafeMutableBufferPointer { out in
            _ = evbuffer_remove(buffer, out.baseAddress! + start, count)
        }
        return true
    }
}

/// The event base and server core that `InMemoryServerConnection`s made with `init(host:)` are
/// served by, one connection at a time, on the thread that made it. Freed by `finish()` (or
/// when the last reference goes).
package final class InMemoryServerHost {
    let loop: ServerEventLoop
    let core: ServerCore
    private var finished = false

    package init(configuration: HTTPServerConfiguration, router: Router) throws(HTTPServerError) {
        let loop = try ServerEventLoop()
        core = try loop.startWithoutListeners(configuration: configuration, router: router)
        self.loop = loop
    }

    /// Frees the core (and any connection still open), the eventfd and the event base.
    package func finish() {
        guard !finished else { return }
        finished = true
        loop.finish()
    }

    deinit { finish() }
}

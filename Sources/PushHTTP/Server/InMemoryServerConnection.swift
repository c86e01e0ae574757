import CPushLab

/// The server's real connection code (`ServerConnection` → `HTTP1Session`/`HTTP2Session` →
/// `RequestHead` → `RequestDispatcher` → the router's handlers) on one end of a libevent
/// bufferevent pair: no socket, no listener, no loop thread. The calling thread runs the event
/// loop. For the HTTP/1.1 request-parser fuzz target (Fuzz/FuzzHTTP1) and the regression tests
/// that replay its inputs; servers for real peers are `HTTPServer`.
///
/// One thread only, and one connection per instance: feed bytes with `send(_:)`, then read
/// everything the server wrote with `finish()`. Made with `init(configuration:router:)` the
/// connection has its own event base, freed by `finish()`; made with `init(host:)` it is one of
/// many connections, one after another, served by a long-lived `InMemoryServerHost` (the fuzz
/// target's: an event base, an eventfd and a core per input were a third of its time), and
/// `finish()` frees only the connection and the pair.
package final class InMemoryServerConnection {
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
    /// The client's end of the pair; the server's end belongs to the connection.
    private var client: OpaquePointer?
    private var output: [UInt8] = []
    private var finished = false

    /// Fails like `HTTPServer.start()` would for a bad configuration; nothing is bound (the
    /// core runs as a worker loop, which never listens).
    package convenience init(configuration: HTTPServerConfiguration, router: Router, isTLS: Bool = false) throws(HTTPServerError) {
        let host = try InMemoryServerHost(configuration: configuration, router: router)
        try self.init(host: host, ownsHost: true, isTLS: isTLS)
    }

    /// A connection to `host`, which must have no open connection (the previous one finished).
    package convenience init(host: InMemoryServerHost, isTLS: Bool = false) throws(HTTPServerError) {
        precondition(host.core.openConnectionCount == 0, "InMemoryServerHost: the previous connection was not finished")
        try self.init(host: host, ownsHost: false, isTLS: isTLS)
    }

    private init(host: InMemoryServerHost, ownsHost: Bool, isTLS: Bool) throws(HTTPServerError) {
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
    package func send(_ bytes: [UInt8]) {
        guard !finished, let client, !bytes.isEmpty else { return }
        bufferevent_write(client, bytes, bytes.count)
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

    private func collectOutput() {
        guard let client, let input = bufferevent_get_input(client) else { return }
        let count = evbuffer_get_length(input)
        guard count > 0 else { return }
        let start = output.count
        output.append(contentsOf: repeatElement(0, count: count))
        output.withUnsafeMutableBufferPointer { buffer in
            _ = evbuffer_remove(input, buffer.baseAddress! + start, count)
        }
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

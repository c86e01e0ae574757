import CPushLab

/// The server's real connection code (`ServerConnection` → `HTTP1Session`/`HTTP2Session` →
/// `RequestHead` → `RequestDispatcher` → the router's handlers) on one end of a libevent
/// bufferevent pair: no socket, no listener, no loop thread. The calling thread runs the event
/// loop. For the HTTP/1.1 request-parser fuzz target (Fuzz/FuzzHTTP1) and the regression tests
/// that replay its inputs; servers for real peers are `HTTPServer`.
///
/// One thread only, and one connection per instance: feed bytes with `send(_:)`, then read
/// everything the server wrote with `finish()`, which frees every C object.
package final class InMemoryServerConnection {
    /// What the server did with the bytes it was sent.
    package struct Outcome: Sendable {
        /// Every byte the server wrote, in order.
        package var output: [UInt8]
        /// The server closed (or started closing) the connection before `finish()`.
        package var closedByServer: Bool
    }

    private let loop: ServerEventLoop
    private let core: ServerCore
    private let connectionID: UInt64
    /// The client's end of the pair; the server's end belongs to the connection.
    private var client: OpaquePointer?
    private var output: [UInt8] = []
    private var finished = false

    /// Fails like `HTTPServer.start()` would for a bad configuration; nothing is bound (the
    /// core runs as a worker loop, which never listens).
    package init(configuration: HTTPServerConfiguration, router: Router, isTLS: Bool = false) throws(HTTPServerError) {
        let loop = try ServerEventLoop()
        let core = try loop.startWithoutListeners(configuration: configuration, router: router)
        var pair: [OpaquePointer?] = [nil, nil]
        // Deferred callbacks: the server's callbacks run from the loop, as a socket's do,
        // never from inside the other end's write.
        guard bufferevent_pair_new(loop.base, Int32(BEV_OPT_DEFER_CALLBACKS.rawValue), &pair) == 0,
              let server = pair[0], let client = pair[1] else {
            loop.finish()
            throw .eventLoopFailed("bufferevent_pair_new failed")
        }
        self.loop = loop
        self.core = core
        self.client = client
        // Reading enabled on the client's end so the server's output moves into its input.
        bufferevent_enable(client, Int16(EV_READ | EV_WRITE))
        connectionID = core.adopt(server, isTLS: isTLS, remoteAddress: "127.0.0.1:40000").id
        settle()
    }

    /// Writes `bytes` as the client and runs the loop until the server has nothing left to do
    /// (waiting for a `.later` handler's answer on HTTP/1.1).
    package func send(_ bytes: [UInt8]) {
        guard !finished, let client, !bytes.isEmpty else { return }
        bufferevent_write(client, bytes, bytes.count)
        settle()
    }

    /// Everything the server wrote; frees the connection, the pair and the event base.
    package func finish() -> Outcome {
        guard !finished else { return Outcome(output: output, closedByServer: true) }
        settle()
        let closed = core.connection(connectionID)?.isClosing ?? true
        collectOutput()
        finished = true
        if let client { bufferevent_free(client) }
        client = nil
        loop.finish()
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

import CPushLab
import Glibc

/// The direct HTTP/2 client's event loop: one epoll set over its connections and an eventfd,
/// driven on the client's own thread. Created by `NGHTTP2Client.init`, then handed to the
/// thread, after which only that thread touches it. Other threads reach it solely through
/// `ClientInbox` (the shared mutex-protected queue; its wake handle writes the eventfd) and run
/// tasks on it through `ClientLoopExecutor`, exactly as with the libcurl loop.
///
/// Per origin (scheme, host, port) one connection carries the streams; requests beyond the
/// smaller of `maxConcurrentStreams` and the server's SETTINGS_MAX_CONCURRENT_STREAMS wait in
/// the origin's queue. A connection that goes away (GOAWAY, close, error) is replaced by a new
/// one for the requests still waiting; requests the server never saw (refused, or dropped
/// unsent after GOAWAY) go out again, at most `maxAttempts` times.
final class NGHTTP2Loop {
    private let inbox: ClientInbox
    let executor: ClientLoopExecutor
    private let configuration: HTTPClientConfiguration
    private let epoll: Int32
    private let wakeFD: Int32
    private let tls: NGHTTP2TLSContext
    private let callbacks = NGHTTP2ClientCallbacks()
    private let streamLimit: Int
    static let maxAttempts = 3

    private var origins: [String: NGHTTP2Origin] = [:]
    private var lastOrigin: NGHTTP2Origin?
    /// Every connection not yet closed.
    private var connections: [NGHTTP2Connection] = []
    /// Every exchange not yet answered (each knows its index).
    private var live: [NGHTTP2Exchange] = []
    private var toFlush: [NGHTTP2Connection] = []
    private var toDispatch: [NGHTTP2Origin] = []
    /// The earliest request or connect deadline, or later (a finished request's deadline stays
    /// until the next check); the timer scan runs only once it has passed.
    private var nextTimerNanos = UInt64.max

    // Buffers reused every turn.
    private var incoming: [TransferSubmission] = []
    private var cancelled: [UInt64] = []
    private var remoteJobs: [UnownedJob] = []
    private var finished: [(TransferSubmission, Result<HTTPResponse, HTTPClientError>)] = []
    private var completedCount = 0, failedCount = 0, openedCount = 0
    private let readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
    private var readyConnections = [UnsafeMutableRawPointer?](repeating: nil, count: 64)
    private var readyEvents = [UInt32](repeating: 0, count: 64)
    private let headerBlock = NGHTTP2HeaderBlock()

    /// Fails when the kernel refuses an epoll set or an eventfd.
    init?(configuration: HTTPClientConfiguration) {
        let epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        let wakeFD = cpl_server_eventfd()
        guard epoll >= 0, wakeFD >= 0 else {
            if epoll >= 0 { close(epoll) }
            if wakeFD >= 0 { close(wakeFD) }
            return nil
        }
        _ = cpl_h2c_epoll_ctl(epoll, EPOLL_CTL_ADD, wakeFD, UInt32(EPOLLIN.rawValue), nil)
        self.epoll = epoll
        self.wakeFD = wakeFD
        self.configuration = configuration
        tls = NGHTTP2TLSContext(configuration: configuration)
        streamLimit = max(configuration.maxConcurrentStreams, 1)
        inbox = ClientInbox(wakeHandle: MultiWakeHandle(eventFD: wakeFD))
        executor = ClientLoopExecutor(inbox: inbox)
    }

    deinit { readBuffer.deallocate() }

    var sharedInbox: ClientInbox { inbox }

    /// The thread body. Returns when a stop was requested and nothing is in flight.
    func run() {
        executor.attach()
        var resumedCallers = false
        var mayBlock = false
        while true {
            // Tasks running on the loop first: what they send is drained just below.
            var stop = inbox.drain(submissions: &incoming, cancellations: &cancelled, jobs: &remoteJobs)
            if executor.runJobs(&remoteJobs) > 0 {
                stop = inbox.drain(submissions: &incoming, cancellations: &cancelled, jobs: &remoteJobs)
            }
            if !incoming.isEmpty {
                let now = cpl_h2c_now_ns()
                for submission in incoming { start(submission, now: now) }
                incoming.removeAll(keepingCapacity: true)
            }
            for id in cancelled { abort(id: id, with: .cancelled) }
            cancelled.removeAll(keepingCapacity: true)
            if stop == .abortInFlight { abortEverything() }
            dispatchQueued()
            flushQueued()
            if stop != nil && live.isEmpty && finished.isEmpty && !executor.hasLocalJobs && remoteJobs.isEmpty { break }

            // Sleep only when nothing is left to do this turn and no work is queued. Jobs the
            // second drain above took (enqueued by other threads while the first ran, without a
            // wakeup: the loop was awake) are work left to do: sleeping on them stranded their
            // tasks until something else woke the loop (the relay stall, docs/relay.md).
            var timeout: Int32 = 0
            var capped = false
            if mayBlock && remoteJobs.isEmpty && !executor.hasLocalJobs && finished.isEmpty
                && inbox.mayPoll(inFlight: live.count, nextTimerNanos: nextTimerNanos == .max ? nil : nextTimerNanos) {
                (timeout, capped) = millisecondsToNextTimer()
            }
            let count = cpl_h2c_epoll_wait(epoll, &readyConnections, &readyEvents, 64, timeout)
            if capped && count == 0 {
                // Slept the whole cap with no deadline: nothing should have been left to do.
                inbox.cappedSleepEnded(heldWork: !remoteJobs.isEmpty || executor.hasLocalJobs)
            }
            for index in 0..<Int(count) {
                guard let pointer = readyConnections[index] else {
                    var drained: UInt64 = 0
                    _ = read(wakeFD, &drained, 8)
                    continue
                }
                handle(Unmanaged<NGHTTP2Connection>.fromOpaque(pointer).takeUnretainedValue(), events: readyEvents[index])
            }
            let now = cpl_h2c_now_ns()
            if now >= nextTimerNanos { checkTimers(now: now) }
            dispatchQueued()
            flushQueued()

            if deliverFinished() > 0 {
                // Callers on other threads were resumed: give them the CPU once (below).
                // Callers on this loop run at the top of the next turn.
                resumedCallers = !executor.hasLocalJobs
                mayBlock = false
                continue
            }
            if resumedCallers {
                // The callers just resumed usually send their next requests within
                // microseconds: give them the CPU once and pick those up without a wakeup.
                resumedCallers = false
                sched_yield()
                mayBlock = false
                continue
            }
            mayBlock = !executor.hasLocalJobs && remoteJobs.isEmpty
        }
        tearDown()
    }

    /// The longest sleep (ms): with no deadline, as with a far one, the loop looks again after
    /// this long. Only a safety net (as CurlMultiLoop's 1 s): sockets and wakeups end a sleep;
    /// a sleep that runs out the cap holding work counts a missed wake-up (`loopState`).
    static let idleSleepCap: Int32 = 1000

    /// The sleep before the next deadline, and whether it is the cap (no deadline within it).
    private func millisecondsToNextTimer() -> (Int32, capped: Bool) {
        guard nextTimerNanos != .max else { return (Self.idleSleepCap, true) }
        let now = cpl_h2c_now_ns()
        guard nextTimerNanos > now else { return (0, false) }
        let milliseconds = (nextTimerNanos - now + 999_999) / 1_000_000
        return milliseconds >= UInt64(Self.idleSleepCap) ? (Self.idleSleepCap, true) : (Int32(milliseconds), false)
    }

    // MARK: starting

    private func start(_ submission: TransferSubmission, now: UInt64) {
        guard let (origin, path) = resolve(submission.request.url) else {
            refuse(submission, .invalidURL(submission.request.url))
            return
        }
        let exchange = NGHTTP2Exchange(submission: submission, path: path, origin: origin, startNanos: now)
        exchange.liveIndex = live.count
        live.append(exchange)
        if exchange.deadlineNanos < nextTimerNanos { nextTimerNanos = exchange.deadlineNanos }
        origin.enqueue(exchange)
        queueDispatch(origin)
    }

    /// The origin and `:path` of `url`. URLs of the last origin used are recognised by their
    /// prefix, without parsing or hashing.
    private func resolve(_ url: String) -> (NGHTTP2Origin, String)? {
        var url = url
        if let origin = lastOrigin, let path = url.withUTF8({ Self.path(of: $0, after: origin.urlPrefix) }) {
            return (origin, path)
        }
        guard let target = NGHTTP2Target(url: url) else { return nil }
        let origin: NGHTTP2Origin
        if let known = origins[target.originKey] {
            origin = known
        } else {
            origin = NGHTTP2Origin(target: target, urlPrefix: Array(url.utf8.prefix(target.prefixLength)))
            origins[target.originKey] = origin
        }
        lastOrigin = origin
        return (origin, target.path)
    }

    /// The `:path` of a URL that starts with exactly `prefix` followed by "/", "?", "#" or
    /// nothing; nil otherwise.
    private static func path(of url: UnsafeBufferPointer<UInt8>, after prefix: [UInt8]) -> String? {
        guard url.count >= prefix.count else { return nil }
        let matches = prefix.withUnsafeBufferPointer { memcmp($0.baseAddress!, url.baseAddress!, prefix.count) == 0 }
        guard matches else { return nil }
        var end = prefix.count
        if end < url.count {
            let next = url[end]
            guard next == UInt8(ascii: "/") || next == UInt8(ascii: "?") || next == UInt8(ascii: "#") else { return nil }
        }
        let start = end
        while end < url.count, url[end] != UInt8(ascii: "#") { end += 1 }
        if end == start { return "/" }
        let path = String(decoding: UnsafeBufferPointer(rebasing: url[start..<end]), as: UTF8.self)
        return url[start] == UInt8(ascii: "?") ? "/" + path : path
    }

    private func queueDispatch(_ origin: NGHTTP2Origin) {
        guard !origin.dispatchQueued else { return }
        origin.dispatchQueued = true
        toDispatch.append(origin)
    }

    private func dispatchQueued() {
        while let origin = toDispatch.popLast() {
            origin.dispatchQueued = false
            dispatch(origin)
        }
    }

    /// Hands waiting requests of `origin` to its connection while it has free streams; opens
    /// a connection when there is none.
    private func dispatch(_ origin: NGHTTP2Origin) {
        while origin.hasWaiting {
            guard let connection = origin.connection else {
                open(origin)
                if origin.connection == nil { return }
                continue
            }
            guard connection.state == .open, connection.freeStreams(ourLimit: streamLimit) > 0,
                  let exchange = origin.popWaiting() else { return }
            submit(exchange, on: connection)
        }
    }

    private func open(_ origin: NGHTTP2Origin) {
        var error = ""
        guard let connection = NGHTTP2Connection(origin: origin, loop: self, nowNanos: cpl_h2c_now_ns(),
                                                 connectTimeout: configuration.connectTimeout, error: &error) else {
            let failure = HTTPClientError.connectFailed(error)
            for exchange in origin.takeWaiting() { finish(exchange, .failure(failure)) }
            return
        }
        origin.connection = connection
        connections.append(connection)
        connection.interest = UInt32(EPOLLOUT.rawValue)
        _ = cpl_h2c_epoll_ctl(epoll, EPOLL_CTL_ADD, connection.fd, connection.interest, Unmanaged.passUnretained(connection).toOpaque())
        if connection.connectDeadlineNanos < nextTimerNanos { nextTimerNanos = connection.connectDeadlineNanos }
    }

    private func submit(_ exchange: NGHTTP2Exchange, on connection: NGHTTP2Connection) {
        let origin = exchange.origin
        let request = exchange.submission.request
        headerBlock.build(method: request.method, tls: origin.tls, authority: origin.authority, path: exchange.path,
                          headers: request.headers, bodyCount: request.body.count, userAgent: configuration.userAgent)
        let id = connection.submit(exchange, headers: headerBlock.fields, count: headerBlock.count)
        guard id > 0 else {
            if id == NGHTTP2_ERR_STREAM_ID_NOT_AVAILABLE.rawValue {
                // Stream ids spent: this connection ends with its streams, a new one takes over.
                goAwayReceived(on: connection)
                origin.requeueFirst(exchange)
                return
            }
            finish(exchange, .failure(.protocolError("nghttp2 refused the request: \(String(cString: nghttp2_strerror(id)))")))
            return
        }
        exchange.connection = connection
        exchange.streamID = id
        if exchange.startNanos <= connection.openedNanos {
            // It waited for this connection: its timings include the connect and handshake.
            exchange.connectNanos = connection.connectNanos
            exchange.tlsNanos = connection.tlsNanos
        }
        connection.openStreams += 1
        queueFlush(connection)
    }

    // MARK: socket events

    private func handle(_ connection: NGHTTP2Connection, events: UInt32) {
        guard connection.state != .closed else { return }
        if !connection.isPastConnecting {
            switch connection.advance(tls: tls, callbacks: callbacks, caFile: configuration.caFile) {
            case .waiting:
                setInterest(connection, connection.state == .connecting ? UInt32(EPOLLOUT.rawValue) : connection.interest, force: true)
            case .failed(let error):
                connectionFailed(connection, error)
            case .ready:
                openedCount += 1
                queueDispatch(connection.origin)
                queueFlush(connection)
                receive(on: connection)  // TLS may already hold the server's first frames
            }
            return
        }
        if events & UInt32(EPOLLIN.rawValue | EPOLLERR.rawValue | EPOLLHUP.rawValue) != 0 {
            receive(on: connection)
        }
        if events & UInt32(EPOLLOUT.rawValue) != 0 { queueFlush(connection) }
    }

    private func receive(on connection: NGHTTP2Connection) {
        guard connection.state == .open else { return }
        switch connection.receive(buffer: readBuffer) {
        case .ok: queueFlush(connection)
        case .closed(let why): connectionLost(connection, why)
        }
    }

    private func queueFlush(_ connection: NGHTTP2Connection) {
        guard !connection.queuedForFlush else { return }
        connection.queuedForFlush = true
        toFlush.append(connection)
    }

    private func flushQueued() {
        while let connection = toFlush.popLast() {
            connection.queuedForFlush = false
            guard connection.state == .open else { continue }
            switch connection.flush() {
            case .closed(let why):
                connectionLost(connection, why)
            case .ok:
                if connection.isFinished {
                    connectionLost(connection, "the connection ended after GOAWAY")
                } else {
                    setInterest(connection, UInt32(EPOLLIN.rawValue) | (connection.wantsWritable ? UInt32(EPOLLOUT.rawValue) : 0))
                }
            }
        }
    }

    private func setInterest(_ connection: NGHTTP2Connection, _ events: UInt32, force: Bool = false) {
        guard force || events != connection.interest else { return }
        connection.interest = events
        _ = cpl_h2c_epoll_ctl(epoll, EPOLL_CTL_MOD, connection.fd, events, Unmanaged.passUnretained(connection).toOpaque())
    }

    // MARK: nghttp2 events (from NGHTTP2ClientCallbacks, inside receive/flush)

    func streamClosed(_ exchange: NGHTTP2Exchange?, on connection: NGHTTP2Connection, code: HTTP2ErrorCode) {
        queueDispatch(connection.origin)
        guard let exchange, !exchange.isFinished else { return }
        exchange.connection = nil  // closed: nothing to reset
        if exchange.complete {
            finish(exchange, .success(exchange.response(endNanos: cpl_h2c_now_ns())))
        } else if code == .refusedStream || exchange.notSent {
            retry(exchange, why: "the server refused the stream (HTTP/2 error \(code))")
        } else {
            finish(exchange, .failure(.protocolError(
                "the server reset the stream before the response was complete (HTTP/2 error \(code))")))
        }
    }

    func goAwayReceived(on connection: NGHTTP2Connection) {
        connection.goingAway = true
        if connection.origin.connection === connection { connection.origin.connection = nil }
        queueDispatch(connection.origin)
    }

    func streamsMayBeFree(on connection: NGHTTP2Connection) {
        queueDispatch(connection.origin)
    }

    /// The response broke a limit (the exchange holds the failure): reset its stream and
    /// answer the caller now.
    func abandonStream(of exchange: NGHTTP2Exchange) {
        finish(exchange, .failure(exchange.failure ?? .protocolError("stream abandoned")))
    }

    // MARK: finishing

    /// Sends `exchange` again on a fresh stream (the server did not process it).
    private func retry(_ exchange: NGHTTP2Exchange, why: String) {
        guard exchange.attempts + 1 < Self.maxAttempts else {
            finish(exchange, .failure(.protocolError("\(why), \(Self.maxAttempts) times")))
            return
        }
        exchange.detachFromStream()
        exchange.origin.requeueFirst(exchange)
        queueDispatch(exchange.origin)
    }

    /// Answers the exchange's caller (at the end of this turn, after the stats are recorded).
    /// A stream still open (the exchange still names its connection) is reset first, so
    /// nghttp2 calls nothing back for it; callers whose stream closed clear `connection`.
    private func finish(_ exchange: NGHTTP2Exchange, _ outcome: Result<HTTPResponse, HTTPClientError>) {
        let index = exchange.liveIndex
        guard index >= 0 else { return }
        if let connection = exchange.connection, connection.state == .open, exchange.streamID > 0 {
            connection.reset(streamID: exchange.streamID, code: .cancel)
            queueFlush(connection)
        }
        exchange.connection = nil
        let last = live.removeLast()
        if last !== exchange {
            live[index] = last
            last.liveIndex = index
        }
        exchange.liveIndex = -1
        if case .success = outcome { completedCount += 1 } else { failedCount += 1 }
        finished.append((exchange.submission, outcome))
    }

    /// Fails a request that never became an exchange.
    private func refuse(_ submission: TransferSubmission, _ error: HTTPClientError) {
        failedCount += 1
        finished.append((submission, .failure(error)))
    }

    /// Stats first (so a caller that reads them after its response sees its own exchange
    /// counted), then the continuations. Returns how many callers were resumed.
    private func deliverFinished() -> Int {
        guard !finished.isEmpty || openedCount > 0 else { return 0 }
        inbox.record(completed: completedCount, failed: failedCount, connectionsOpened: openedCount)
        completedCount = 0
        failedCount = 0
        openedCount = 0
        for (submission, outcome) in finished {
            switch outcome {
            case .success(let response): submission.continuation.resume(returning: response)
            case .failure(let error): submission.continuation.resume(throwing: error)
            }
        }
        let count = finished.count
        finished.removeAll(keepingCapacity: true)
        return count
    }

    private func abort(id: UInt64, with error: HTTPClientError) {
        guard let exchange = live.first(where: { $0.submission.id == id }) else { return }
        finish(exchange, .failure(error))
    }

    private func checkTimers(now: UInt64) {
        var next = UInt64.max
        var index = 0
        while index < live.count {
            let exchange = live[index]
            if exchange.deadlineNanos <= now {
                finish(exchange, .failure(.timedOut(after: exchange.submission.timeout)))  // moves the last one here
            } else {
                next = min(next, exchange.deadlineNanos)
                index += 1
            }
        }
        for connection in connections where !connection.isPastConnecting {
            if connection.connectDeadlineNanos <= now {
                let ms = Int((now - connection.openedNanos) / 1_000_000)
                connectionFailed(connection, .connectFailed("Connection timed out after \(ms) milliseconds "
                    + "(connect timeout \(configuration.connectTimeout)) to \(connection.origin.host) port \(connection.origin.port)"))
            } else {
                next = min(next, connection.connectDeadlineNanos)
            }
        }
        nextTimerNanos = next
    }

    // MARK: connections ending

    private func remove(_ connection: NGHTTP2Connection) {
        _ = cpl_h2c_epoll_ctl(epoll, EPOLL_CTL_DEL, connection.fd, 0, nil)
        connection.close()
        if let index = connections.firstIndex(where: { $0 === connection }) { connections.remove(at: index) }
        if connection.origin.connection === connection { connection.origin.connection = nil }
    }

    /// The connect or handshake failed: every request waiting for this origin fails with it.
    private func connectionFailed(_ connection: NGHTTP2Connection, _ error: HTTPClientError) {
        remove(connection)
        for exchange in connection.origin.takeWaiting() { finish(exchange, .failure(error)) }
    }

    /// An open connection ended. Requests it never sent go out again on a new connection;
    /// requests the server may have acted on fail (sending them twice could push twice).
    private func connectionLost(_ connection: NGHTTP2Connection, _ why: String) {
        remove(connection)
        var index = 0
        while index < live.count {
            let exchange = live[index]
            guard exchange.connection === connection else {
                index += 1
                continue
            }
            exchange.connection = nil  // the session is gone: nothing to reset
            if exchange.complete {
                finish(exchange, .success(exchange.response(endNanos: cpl_h2c_now_ns())))
            } else if !exchange.headersSent || exchange.notSent {
                retry(exchange, why: "the connection closed before the request was sent (\(why))")
                if !exchange.isFinished { index += 1 }
            } else {
                finish(exchange, .failure(.protocolError(
                    "the connection to \(connection.origin.host):\(connection.origin.port) closed before the response arrived (\(why))")))
            }
        }
        queueDispatch(connection.origin)
    }

    private func abortEverything() {
        while let exchange = live.last { finish(exchange, .failure(.shutDown)) }
        flushQueued()  // the resets
    }

    private func tearDown() {
        // Callers resumed from here on run on the global executor: this thread is leaving.
        executor.detach()
        abortEverything()
        for connection in connections {
            connection.sayGoodbye()
            connection.close()
        }
        connections.removeAll()
        origins.removeAll()
        lastOrigin = nil
        _ = deliverFinished()
        let (late, jobs, waiters) = inbox.markFinished()
        executor.forward(jobs)
        for submission in late { submission.continuation.resume(throwing: HTTPClientError.shutDown) }
        close(epoll)
        close(wakeFD)
        for waiter in waiters { waiter.resume() }
    }
}

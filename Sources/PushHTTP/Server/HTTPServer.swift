import Glibc
import Synchronization

/// An HTTP/2 (and HTTP/1.1) server on nghttp2 + libevent + OpenSSL, on one event-loop thread
/// or, with `eventLoops > 1`, on several (connections spread round-robin).
///
/// ```swift
/// var router = Router()
/// router.add("GET", "/health") { _ in .now(.json(200, #"{"status":"ok"}"#)) }
/// let server = HTTPServer(configuration: HTTPServerConfiguration(cleartextPort: 0), router: router)
/// try server.start()
/// print(server.cleartextPort!)   // the bound port
/// await server.stop()            // drains in-flight requests, then closes
/// ```
///
/// Listeners: TLS (ALPN h2, falling back to HTTP/1.1) and cleartext (h2c prior knowledge or
/// HTTP/1.1, told apart by the connection preface, RFC 9113 §3.4). Both versions feed the same
/// `Router`. A server starts once; `stop()` is idempotent.
public final class HTTPServer: Sendable {
    private enum State {
        case idle
        /// The first loop accepts; every loop serves connections.
        case running([ServerEventLoop], BoundAddresses)
        case stopped
    }

    public let configuration: HTTPServerConfiguration
    private let router: Router
    private let state = SanitizerVisibleMutex(State.idle)

    public init(configuration: HTTPServerConfiguration, router: Router) {
        self.configuration = configuration
        self.router = router
    }

    /// Binds the listeners (so a busy port fails here, not later) and starts the loop thread.
    public func start() throws(HTTPServerError) {
        // A peer that closes while we write must cost one connection, not the process: OpenSSL
        // and libevent write with plain write(2), which raises SIGPIPE by default.
        signal(SIGPIPE, SIG_IGN)
        try state.withLock { state throws(HTTPServerError) in
            guard case .idle = state else { throw .alreadyStarted }
            let count = max(1, configuration.eventLoops)
            // Serving loops first, so the acceptor can hand out connections from its first one.
            var workers: [ServerEventLoop] = []
            do throws(HTTPServerError) {
                for index in 1..<count {
                    let worker = try ServerEventLoop()
                    _ = try worker.start(configuration: configuration, router: router,
                                         role: .worker(firstConnectionID: UInt64(index + 1), connectionIDStride: UInt64(count)))
                    workers.append(worker)
                }
                let acceptor = try ServerEventLoop()
                let bound = try acceptor.start(configuration: configuration, router: router,
                                               role: .acceptor(workers: workers, connectionIDStride: UInt64(count)))
                state = .running([acceptor] + workers, bound)
            } catch {
                for worker in workers { worker.execute { core in core.beginShutdown() } }
                throw error
            }
        }
    }

    /// The bound ports; nil before `start()` and after `stop()`.
    public var boundAddresses: BoundAddresses? {
        state.withLock { state in
            if case .running(_, let bound) = state { return bound }
            return nil
        }
    }

    public var tlsPort: Int? { boundAddresses?.tlsPort }
    public var cleartextPort: Int? { boundAddresses?.cleartextPort }

    /// How many client connections are open right now, over every loop (diagnostics, leak
    /// checks in tests).
    public func openConnectionCount() async -> Int {
        var total = 0
        for loop in runningLoops {
            total += await withCheckedContinuation { continuation in
                let accepted = loop.execute { core in continuation.resume(returning: core.openConnectionCount) }
                if !accepted { continuation.resume(returning: 0) }
            }
        }
        return total
    }

    private var runningLoops: [ServerEventLoop] {
        state.withLock { state in
            if case .running(let loops, _) = state { return loops }
            return []
        }
    }

    /// Stops accepting, lets in-flight requests finish (HTTP/2 peers get GOAWAY NO_ERROR) for
    /// up to `shutdownGracePeriod`, closes every connection and ends the loop thread.
    public func stop() async {
        let loops: [ServerEventLoop] = state.withLock { state in
            guard case .running(let loops, _) = state else { return [] }
            state = .stopped
            return loops
        }
        // A connection the acceptor hands to a loop that is already draining is closed there.
        for loop in loops { loop.execute { core in core.beginShutdown() } }
        for loop in loops { await loop.waitUntilFinished() }
    }

    deinit {
        // A server dropped without stop() still releases its thread and sockets.
        state.withLock { state in
            if case .running(let loops, _) = state { for loop in loops { loop.execute { core in core.beginShutdown() } } }
        }
    }
}

import CPushLab
import Foundation

/// The server's state on its event-loop thread: listeners, the TLS context, live connections,
/// graceful shutdown. Loop thread only (see `ServerEventLoop`); not Sendable on purpose.
final class ServerCore {
    /// What this loop does besides serving its connections.
    enum Role {
        /// Binds the listeners, accepts, and deals the connections out round-robin over
        /// `[self] + workers`.
        case acceptor(workers: [ServerEventLoop], connectionIDStride: UInt64)
        /// Serves the connections the acceptor hands it. Connection ids start at
        /// `firstConnectionID` and step by the loop count, so they stay unique server-wide.
        case worker(firstConnectionID: UInt64, connectionIDStride: UInt64)
    }

    unowned let loop: ServerEventLoop
    let configuration: HTTPServerConfiguration
    let dispatcher: RequestDispatcher
    let http2Callbacks: HTTP2Callbacks
    private(set) var boundAddresses: BoundAddresses
    private var tlsContext: OpaquePointer?
    private var tlsListener: OpaquePointer?
    private var cleartextListener: OpaquePointer?
    private var connections: [UInt64: ServerConnection] = [:]
    private var nextConnectionID: UInt64
    private let connectionIDStride: UInt64
    /// Acceptor only: the other loops and whose turn the next connection is (0 = this loop).
    private let workers: [ServerEventLoop]
    private var nextLoop = 0
    private(set) var isShuttingDown = false
    private var graceTimer: OpaquePointer?
    /// Scratch space where HTTP/2 sessions gather outgoing frames (one loop thread, so one
    /// buffer serves every connection).
    let outputStaging = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: 16 << 10)

    init(loop: ServerEventLoop, configuration: HTTPServerConfiguration, router: Router, role: Role) throws(HTTPServerError) {
        self.loop = loop
        let listens: Bool
        switch role {
        case .acceptor(let workers, let stride):
            (self.workers, nextConnectionID, connectionIDStride, listens) = (workers, 1, stride, true)
        case .worker(let first, let stride):
            (self.workers, nextConnectionID, connectionIDStride, listens) = ([], first, stride, false)
        }
        self.configuration = configuration
        self.dispatcher = RequestDispatcher(router: router, loop: loop)
        self.http2Callbacks = HTTP2Callbacks()
        self.boundAddresses = BoundAddresses(host: configuration.host)
        guard configuration.tlsPort != nil || configuration.cleartextPort != nil else { throw .noListener }
        do {
            if let port = configuration.tlsPort {
                guard let cert = configuration.certificateFile, let key = configuration.privateKeyFile else {
                    throw HTTPServerError.missingCertificate
                }
                var error = [CChar](repeating: 0, count: 512)
                guard let ctx = cpl_server_tls_context(cert, key, &error, error.count) else {
                    throw HTTPServerError.tlsSetupFailed(String(nulTerminated: error))
                }
                tlsContext = ctx
                if let caFile = configuration.clientCertificateCAFile,
                   cpl_server_request_client_certificates(ctx, caFile, &error, error.count) != 1 {
                    throw HTTPServerError.tlsSetupFailed(String(nulTerminated: error))
                }
                if listens {
                    let (listener, bound) = try bind(port: port)
                    tlsListener = listener
                    boundAddresses.tlsPort = bound
                }
            }
            if listens, let port = configuration.cleartextPort {
                let (listener, bound) = try bind(port: port)
                cleartextListener = listener
                boundAddresses.cleartextPort = bound
            }
        } catch let error as HTTPServerError {
            teardown()
            throw error
        } catch {
            teardown()
            throw .eventLoopFailed("\(error)")
        }
    }

    // MARK: Listeners

    private func bind(port: Int) throws -> (OpaquePointer, Int) {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_PASSIVE
        var result: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(configuration.host, String(port), &hints, &result)
        guard status == 0, let first = result else {
            throw HTTPServerError.cannotResolve(host: configuration.host, reason: String(cString: gai_strerror(status)))
        }
        defer { freeaddrinfo(result) }
        let flags = UInt32(LEV_OPT_REUSEABLE | LEV_OPT_CLOSE_ON_FREE | LEV_OPT_CLOSE_ON_EXEC)
        let context = Unmanaged.passUnretained(self).toOpaque()
        guard let listener = evconnlistener_new_bind(loop.base, { listener, fd, address, length, context in
            let core = Unmanaged<ServerCore>.fromOpaque(context!).takeUnretainedValue()
            core.accept(fd: fd, address: address, length: length, listener: listener)
        }, context, flags, 1024, first.pointee.ai_addr, Int32(first.pointee.ai_addrlen)) else {
            throw HTTPServerError.bindFailed(host: configuration.host, port: port, reason: String(cString: strerror(errno)))
        }
        evconnlistener_set_error_cb(listener) { listener, _ in
            // EMFILE and friends: keep listening; the next accept may succeed once fds free up.
            _ = listener
        }
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let fd = evconnlistener_get_fd(listener)
        let boundPort = withUnsafeMutablePointer(to: &storage) { pointer -> Int in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { _ = getsockname(fd, $0, &length) }
            if pointer.pointee.ss_family == sa_family_t(AF_INET6) {
                return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin6_port)) }
            }
            return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) }
        }
        return (listener, boundPort)
    }

    private func accept(fd: Int32, address: UnsafeMutablePointer<sockaddr>?, length: Int32,
                        listener: OpaquePointer?) {
        guard !isShuttingDown else {
            close(fd)
            return
        }
        _ = cpl_server_set_nodelay(fd)
        let isTLS = listener == tlsListener
        let remoteAddress = Self.describe(address)
        let turn = nextLoop
        nextLoop = (nextLoop + 1) % (workers.count + 1)
        guard turn > 0 else { return adopt(fd: fd, isTLS: isTLS, remoteAddress: remoteAddress) }
        let accepted = workers[turn - 1].execute { core in core.adopt(fd: fd, isTLS: isTLS, remoteAddress: remoteAddress) }
        if !accepted { close(fd) }
    }

    /// Takes over an accepted socket: from here on the connection lives on this loop.
    private func adopt(fd: Int32, isTLS: Bool, remoteAddress: String) {
        guard !isShuttingDown else {
            close(fd)
            return
        }
        let bev: OpaquePointer?
        if isTLS, let tlsContext {
            guard let ssl = SSL_new(tlsContext) else {
                close(fd)
                return
            }
            bev = bufferevent_openssl_socket_new(loop.base, fd, ssl, BUFFEREVENT_SSL_ACCEPTING,
                                                 Int32(BEV_OPT_CLOSE_ON_FREE.rawValue))
            // Clients that close without close_notify are normal (curl, h2load); not an error.
            if let bev { bufferevent_openssl_set_allow_dirty_shutdown(bev, 1) }
        } else {
            bev = bufferevent_socket_new(loop.base, fd, Int32(BEV_OPT_CLOSE_ON_FREE.rawValue))
        }
        guard let bev else {
            close(fd)
            return
        }
        adopt(bev, isTLS: isTLS, remoteAddress: remoteAddress)
    }

    /// Makes `bev` a served connection (accepted, or one end of an in-memory pair).
    @discardableResult
    func adopt(_ bev: OpaquePointer, isTLS: Bool, remoteAddress: String) -> ServerConnection {
        let id = nextConnectionID
        nextConnectionID += connectionIDStride
        let context = ConnectionContext(id: id, isTLS: isTLS, remoteAddress: remoteAddress,
                                        control: LoopConnectionControl(loop: loop, connectionID: id))
        let connection = ServerConnection(id: id, core: self, bev: bev, context: context)
        connections[id] = connection
        connection.start()
        return connection
    }

    private static func describe(_ address: UnsafeMutablePointer<sockaddr>?) -> String {
        guard let address else { return "unknown" }
        var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        var service = [CChar](repeating: 0, count: Int(NI_MAXSERV))
        let length = socklen_t(address.pointee.sa_family == sa_family_t(AF_INET6)
                               ? MemoryLayout<sockaddr_in6>.size : MemoryLayout<sockaddr_in>.size)
        guard getnameinfo(address, length, &host, socklen_t(host.count), &service, socklen_t(service.count),
                          NI_NUMERICHOST | NI_NUMERICSERV) == 0 else { return "unknown" }
        let h = String(nulTerminated: host)
        return h.contains(":") ? "[\(h)]:\(String(nulTerminated: service))" : "\(h):\(String(nulTerminated: service))"
    }

    // MARK: Connections

    func connection(_ id: UInt64) -> ServerConnection? { connections[id] }

    var openConnectionCount: Int { connections.count }

    /// Called by a connection once it has freed its C resources.
    func connectionClosed(_ id: UInt64) {
        connections[id] = nil
        if isShuttingDown && connections.isEmpty { loop.exitLoop() }
    }

    /// After a batch of cross-thread jobs: let touched connections write and close.
    func afterJobs() {
        for connection in connections.values where connection.needsFlush { connection.finishEvent() }
    }

    // MARK: Shutdown

    /// Stops accepting, asks every connection to finish its in-flight requests (HTTP/2:
    /// GOAWAY NO_ERROR, RFC 9113 §6.8), and ends the loop when the last one closed or the
    /// grace period ran out.
    func beginShutdown() {
        guard !isShuttingDown else { return }
        isShuttingDown = true
        freeListeners()
        if connections.isEmpty {
            loop.exitLoop()
            return
        }
        let context = Unmanaged.passUnretained(self).toOpaque()
        graceTimer = event_new(loop.base, -1, 0, { _, _, context in
            let core = Unmanaged<ServerCore>.fromOpaque(context!).takeUnretainedValue()
            for connection in Array(core.connections.values) { connection.closeNow() }
            core.loop.exitLoop()
        }, context)
        var timeout = timeval(duration: configuration.shutdownGracePeriod)
        event_add(graceTimer, &timeout)
        for connection in Array(connections.values) { connection.drain() }
    }

    private func freeListeners() {
        if let tlsListener { evconnlistener_free(tlsListener) }
        if let cleartextListener { evconnlistener_free(cleartextListener) }
        tlsListener = nil
        cleartextListener = nil
    }

    /// Loop thread after the loop returned (or the starting thread when start fails).
    func teardown() {
        freeListeners()
        for connection in Array(connections.values) { connection.closeNow() }
        connections.removeAll()
        if let graceTimer { event_free(graceTimer) }
        graceTimer = nil
        if let tlsContext { SSL_CTX_free(tlsContext) }
        tlsContext = nil
    }

    deinit { outputStaging.deallocate() }
}

extension timeval {
    init(duration: Duration) {
        let (seconds, attoseconds) = duration.components
        self.init(tv_sec: Int(seconds), tv_usec: Int(attoseconds / 1_000_000_000_000))
    }
}

extension String {
    /// Text of a NUL-terminated C character buffer.
    init(nulTerminated buffer: [CChar]) {
        self = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

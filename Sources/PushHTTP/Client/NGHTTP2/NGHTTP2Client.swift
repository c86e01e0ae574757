import Glibc

/// An HTTP/2-only client written directly on nghttp2 and OpenSSL: TLS with ALPN h2, or h2c
/// prior knowledge (`.h2cPriorKnowledge` on `http://`), over non-blocking sockets driven by
/// `NGHTTP2Loop` on the client's own thread. It behaves like `HTTPClient` where callers can
/// see it (the same requests, responses, errors, timeouts, cancellation, shutdown, `stats` and
/// `executor`) at a fraction of libcurl's CPU per request.
///
/// What it does not speak goes to a libcurl `HTTPClient` it creates on first need: `http://`
/// URLs in `.http2` mode (HTTP/1.1). Modes it cannot serve at all (HTTP/1.1, client
/// certificates, proxies) are `HTTPTransports.make`'s to send to `HTTPClient` instead.
///
/// Threads: as `HTTPClient`, callers' tasks only touch the inbox (`ClientInbox`, a
/// mutex-protected queue whose wake handle writes the loop's eventfd); the loop thread alone
/// touches sockets, TLS and nghttp2. Every continuation is resumed exactly once.
public final class NGHTTP2Client: LoopHTTPTransport {
    public let configuration: HTTPClientConfiguration
    private let inbox: ClientInbox
    private let loopExecutor: ClientLoopExecutor
    private let thread: ClientLoopThread
    /// The libcurl client for HTTP/1.1 requests, made on first need; `.some(nil)` once shut down.
    private let fallback = SanitizerVisibleMutex<HTTPClient??>(nil)

    public init(configuration: HTTPClientConfiguration = HTTPClientConfiguration()) throws {
        self.configuration = configuration
        guard let loop = NGHTTP2Loop(configuration: configuration) else {
            throw HTTPClientError.protocolError("could not create the client's epoll set or eventfd (errno \(errno))")
        }
        inbox = loop.sharedInbox
        loopExecutor = loop.executor
        // The loop object moves to the new thread; this thread never touches it again.
        thread = try ClientLoopThread(stop: { [inbox] in inbox.abandon() }) { loop.run() }
    }

    deinit {
        // Dropped without shutdown(): abort what is left and let the thread finish alone.
        inbox.abandon()
        thread.detach()
    }

    /// The client's loop thread as a task executor (see `HTTPClient.executor`: the same contract).
    public var executor: any TaskExecutor { loopExecutor }

    /// What the loop thread is doing now (`HTTPClientLoopState`; the HTTP/1.1 fallback's loop
    /// is not included).
    public var loopState: HTTPClientLoopState { inbox.loopState() }

    /// Counters over every exchange so far, this client's own and its HTTP/1.1 fallback's.
    public var stats: HTTPClientStats {
        var total = inbox.stats
        if let fallback = fallback.withLock({ $0 ?? nil }) {
            let more = fallback.stats
            total.connectionsOpened += more.connectionsOpened
            total.requestsCompleted += more.requestsCompleted
            total.requestsFailed += more.requestsFailed
        }
        return total
    }

    /// Sends `request`, following up to `request.maxRedirects` redirects, within
    /// `request.timeout` (or the configured default) overall.
    public nonisolated(nonsending) func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let timeout = request.timeout ?? configuration.requestTimeout
        guard timeout > .zero else { throw HTTPClientError.timedOut(after: timeout) }
        var response: HTTPResponse
        do {
            response = try await exchange(request, timeout: timeout)
        } catch HTTPClientError.timedOut {
            throw HTTPClientError.timedOut(after: timeout)
        }
        guard RedirectPolicy.nextRequest(after: response, for: request) != nil else {
            response.redirectChain = [request.url]
            return response
        }
        return try await RedirectPolicy.follow(from: response, of: request, timeout: timeout) { hop, remaining in
            try await self.exchange(hop, timeout: remaining)
        }
    }

    /// One hop, no redirects.
    private nonisolated(nonsending) func exchange(_ request: HTTPRequest, timeout: Duration) async throws -> HTTPResponse {
        if configuration.protocolMode == .http2 && Self.isCleartext(request.url) {
            return try await http1Client().send(HTTPRequest(method: request.method, url: request.url, headers: request.headers,
                                                            body: request.body, timeout: timeout,
                                                            maxResponseBodyBytes: request.maxResponseBodyBytes))
        }
        return try await inbox.exchange(request, timeout: timeout)
    }

    private static func isCleartext(_ url: String) -> Bool {
        var url = url
        return url.withUTF8 { bytes in
            bytes.count >= 7 && bytes[4] | 0x20 != UInt8(ascii: "s") && bytes[0] | 0x20 == UInt8(ascii: "h")
                && bytes[4] == UInt8(ascii: ":")
        }
    }

    private func http1Client() throws -> HTTPClient {
        try fallback.withLock { slot in
            switch slot {
            case .some(.some(let client)): return client
            case .some(.none): throw HTTPClientError.shutDown
            case .none:
                var settings = configuration
                settings.protocolMode = .http1
                let client = try HTTPClient(configuration: settings)
                slot = .some(client)
                return client
            }
        }
    }

    /// Stops the client (and its HTTP/1.1 fallback, if one was made): requests not yet started
    /// fail with `.shutDown`; requests in flight finish (each within its timeout) or, with
    /// `abortInFlight`, fail with `.shutDown` at once. Returns when the loop thread has exited
    /// and every connection is closed. Safe to call more than once.
    public func shutdown(abortInFlight: Bool = false) async {
        let http1 = fallback.withLock { slot -> HTTPClient? in
            let client = slot ?? nil
            slot = .some(nil)
            return client
        }
        async let fallbackStopped: Void? = http1?.shutdown(abortInFlight: abortInFlight)
        await inbox.stop(abortInFlight: abortInFlight)
        _ = await fallbackStopped
        thread.join()
    }
}

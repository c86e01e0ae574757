import CPushLab
import Glibc
import Synchronization

/// The HTTP client: HTTP/2 (TLS with ALPN, or h2c prior knowledge) and HTTP/1.1 over one
/// libcurl multi handle driven on the client's own thread (`CurlMultiLoop`). Any number of
/// tasks may call `send` at once; on HTTP/2 their requests share one connection as streams.
///
/// Threads: callers' tasks only touch `ClientInbox` (a mutex-protected queue; `curl_multi_wakeup`
/// rouses the loop). The loop thread alone touches libcurl. Every caller's continuation is
/// resumed exactly once: by the inbox when a request is refused up front, otherwise by the loop.
///
/// Call `shutdown()` when done; a client dropped without it aborts its transfers and its
/// thread exits on its own.
public final class HTTPClient: HTTPTransport {
    public let configuration: HTTPClientConfiguration
    private let inbox: ClientInbox
    private let loopExecutor: ClientLoopExecutor
    private let thread: ClientLoopThread

    public init(configuration: HTTPClientConfiguration = HTTPClientConfiguration()) throws {
        self.configuration = configuration
        guard let loop = CurlMultiLoop(configuration: configuration) else {
            throw HTTPClientError.protocolError("libcurl could not create a multi handle")
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

    /// The client's loop thread as a task executor. Tasks that send many requests one after
    /// another (a bulk send's workers) run cheapest on it:
    ///
    ///     await withTaskExecutorPreference(client.executor) { … try await client.send(r) … }
    ///
    /// Their requests then cost no thread hand-off: the loop resumes them after a response and
    /// picks up their next request in the same turn, without locks contended or threads woken.
    /// Other tasks may call `send` as before. Code on this executor must not block its thread
    /// (it would stall the client's transfers); after `shutdown()` such tasks continue on the
    /// global executor.
    public var executor: any TaskExecutor { loopExecutor }

    /// Counters over every exchange so far (each redirect hop counts as one).
    public var stats: HTTPClientStats { inbox.stats }

    /// What the loop thread is doing now (`HTTPClientLoopState`; no in-flight count or timer:
    /// libcurl keeps those).
    public var loopState: HTTPClientLoopState { inbox.loopState() }

    /// How many times the loop corked its connections while libcurl wrote a batch of requests
    /// (see `CurlMultiLoop.performCorked`). For tests.
    var corkedTurns: Int { inbox.corkedTurns.load(ordering: .relaxed) }

    /// True when this process drops the redundant RST_STREAM libcurl 7.88 sends after every
    /// bodiless response (servers with the "rapid reset" defence otherwise close the connection
    /// every ~1000 such responses; see Sources/CPushLab/curl_shim.c). False when the executable
    /// was linked without exporting the override.
    public static var dropsRedundantStreamResets: Bool { cpl_redundant_reset_filter_active() != 0 }

    /// Sends `request`, following up to `request.maxRedirects` redirects, within
    /// `request.timeout` (or the configured default) overall.
    ///
    /// Runs on the caller's executor (`nonisolated(nonsending)`): it only queues the request and
    /// waits, so there is nothing to gain from hopping to the global executor first, and a
    /// caller on the client's loop (`executor`) stays there without a task switch.
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
        try await inbox.exchange(request, timeout: timeout)
    }

    /// Stops the client: requests not yet started fail with `.shutDown`; requests in flight
    /// finish (each within its timeout) or, with `abortInFlight`, fail with `.shutDown` at once.
    /// Returns when the loop thread has exited and every connection is closed. Safe to call
    /// more than once.
    public func shutdown(abortInFlight: Bool = false) async {
        await inbox.stop(abortInFlight: abortInFlight)
        // The loop has finished its work and is returning; the join is immediate.
        thread.join()
    }
}

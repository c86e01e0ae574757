/// An `HTTPTransport` that owns a loop thread and its connections: the libcurl `HTTPClient`
/// and the direct HTTP/2 `NGHTTP2Client`. `HTTPTransports.make` picks one; code that sends in
/// bulk, reads the counters or must stop the client takes this protocol.
public protocol LoopHTTPTransport: HTTPTransport, AnyObject {
    var configuration: HTTPClientConfiguration { get }
    /// Counters over every exchange so far (each redirect hop counts as one).
    var stats: HTTPClientStats { get }
    /// The loop thread as a task executor: tasks preferring it send without thread hand-offs.
    var executor: any TaskExecutor { get }
    /// What the loop thread is doing now (asleep, queued work, in flight, missed wake-ups):
    /// for state dumps (`pushlab relay`'s SIGQUIT report).
    var loopState: HTTPClientLoopState { get }
    /// Stops the client: requests not yet started fail with `.shutDown`; requests in flight
    /// finish or, with `abortInFlight`, fail with `.shutDown` at once. Idempotent.
    func shutdown(abortInFlight: Bool) async
}

extension LoopHTTPTransport {
    public func shutdown() async { await shutdown(abortInFlight: false) }
}

extension HTTPClient: LoopHTTPTransport {}

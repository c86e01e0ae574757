import FuzzSupport
import PushHTTP
import TestSupport

/// libFuzzer target: the server's HTTP/1.1 request parser (`HTTP1Session` + `RequestHead`:
/// request line, header fields, Content-Length and chunked bodies, trailers, Expect, pipelining,
/// keep-alive and close) on the real connection code over an in-memory libevent pair: no socket.
/// Input format and routes: `HTTP1FuzzExchange` (Tests/TestSupport). Whatever the bytes, the
/// server must not trap or hang, and everything it writes must be well-formed HTTP/1.1
/// responses (no control bytes in a field, one valid content-length, nothing after a close).
///
/// `.later` handlers run inline on this thread (`InlineGlobalExecutor`): their tasks start and
/// end within the input, so nothing of one input is freed during the next.
let inlineTasks: Void = InlineGlobalExecutor.install()

/// One server (event base, core, router) for every input of the process; each input is a new
/// connection to it, closed and freed before the input returns (`InMemoryServerHost`). Used by
/// libFuzzer's one thread only, hence `nonisolated(unsafe)`.
nonisolated(unsafe) let host: InMemoryServerHost = {
    do { return try HTTP1FuzzExchange.makeHost() } catch { fatalError("cannot set up the in-memory server: \(error)") }
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTP1(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    _ = inlineTasks
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    do {
        _ = try HTTP1FuzzExchange.run(input, host: host)
    } catch {
        fatalError("\(error)")
    }
    return 0
}

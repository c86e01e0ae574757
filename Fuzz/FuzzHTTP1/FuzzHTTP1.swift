import Foundation
import FuzzSupport
import PushHTTP
import TestSupport

/// libFuzzer target: the server's HTTP/1.1 request parser (`HTTP1Session` + `RequestHead`:
/// request line, header fields, Content-Length and chunked bodies, trailers, Expect, pipelining,
/// keep-alive and close) on the real connection code, in memory: no socket. Every input runs
/// over the direct transport (`InMemoryServerConnection.Transport.direct`: the connection's
/// read and write callbacks called in the order the event loop would call them, without its
/// iterations); some inputs (`runsOverThePair`) also run over a libevent bufferevent pair through
/// the event loop, and both must give the same bytes.
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

/// Some inputs also run over the bufferevent pair, through the event loop (the end-to-end path
/// a socket takes), and must give the same bytes as over the direct transport: an input of at
/// most `pairedWrites` writes whose hash is a multiple of `pairedOneIn` (a property of the bytes,
/// so a finding replays from its file). Over the pair every write costs two or three loop
/// iterations (an `epoll_wait` each: 370 per input over the kept corpus, 40% of the target's
/// time), and pairing every short input cost a third of the rate (it runs the server twice).
/// `FUZZ_CHECK_PAIR=1` runs every input over both (`-runs=0 <dirs>` checks a corpus; scripts/fuzz's
/// sanitizer pass does so over the kept corpus).
let checksEveryInput = ProcessInfo.processInfo.environment["FUZZ_CHECK_PAIR"] == "1"
let pairedWrites = 8
let pairedOneIn: UInt64 = 8

func runsOverThePair(_ input: [UInt8]) -> Bool {
    if checksEveryInput { return true }
    guard HTTP1FuzzExchange.writeCount(input) <= pairedWrites else { return false }
    // FNV-1a of the length and at most 32 bytes from each end (the loop's comparisons are
    // traced by the coverage instrumentation, so not over all of a long input).
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325 ^ UInt64(input.count)
    for byte in input.prefix(32) + input.suffix(32) { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
    return hash % pairedOneIn == 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTP1(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    _ = inlineTasks
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    do {
        let direct = try HTTP1FuzzExchange.run(input, host: host, transport: .direct)
        if runsOverThePair(input) {
            let paired = try HTTP1FuzzExchange.run(input, host: host, transport: .pair)
            guard paired.rawOutput == direct.rawOutput, paired.closedByServer == direct.closedByServer else {
                fatalError("""
                    the direct transport and the pair answered differently
                    pair (closed \(paired.closedByServer)): \(HTTP1FuzzExchange.printable(paired.rawOutput))
                    direct (closed \(direct.closedByServer)): \(HTTP1FuzzExchange.printable(direct.rawOutput))
                    """)
            }
        }
    } catch {
        fatalError("\(error)")
    }
    return 0
}

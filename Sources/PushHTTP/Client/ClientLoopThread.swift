import CPushLab
import Glibc

/// The thread a client's loop runs on (`HTTPClient`'s libcurl loop, `NGHTTP2Client`'s
/// nghttp2 loop): named `pushlab-client` (one per client: `top -H` and the tests count them),
/// SIGPIPE blocked (writes use MSG_NOSIGNAL, but a TLS alert on a closed socket must not kill
/// the process). Joined by `shutdown`; when a client is dropped without it, its loop finishes
/// alone and `ClientLoopThreads` joins the thread later (never detached: see there).
final class ClientLoopThread: Sendable {
    private let id: Int

    /// Starts `body` on a new thread; `body` and what it captures move to that thread.
    /// `stop` asks the loop to end at once (the client's `abandon`): `ClientLoopThreads.endAll`
    /// calls it when the process exits with the loop still running.
    init(stop: @escaping @Sendable () -> Void, _ body: @escaping () -> Void) throws {
        let context = Unmanaged.passRetained(ThreadBody(body)).toOpaque()
        var thread = pthread_t()
        let status = pthread_create(&thread, nil, { context in
            var pipeSignal = sigset_t()
            sigemptyset(&pipeSignal)
            sigaddset(&pipeSignal, SIGPIPE)
            pthread_sigmask(SIG_BLOCK, &pipeSignal, nil)
            _ = cpl_server_name_thread("pushlab-client")
            Unmanaged<ThreadBody>.fromOpaque(context!).takeRetainedValue().body()
            return nil
        }, context)
        guard status == 0 else {
            Unmanaged<ThreadBody>.fromOpaque(context).release()
            throw HTTPClientError.protocolError("could not start the client thread (errno \(status))")
        }
        id = ClientLoopThreads.started(thread, stop: stop)
    }

    /// Waits for the thread to end (once; later calls return at once).
    func join() { ClientLoopThreads.join(id) }

    /// Lets the loop finish on its own; the thread is joined once it has.
    func detach() { ClientLoopThreads.orphan(id) }
}

/// Carries the thread's body through pthread_create's context pointer.
private final class ThreadBody {
    let body: () -> Void
    init(_ body: @escaping () -> Void) { self.body = body }
}

/// Every client loop thread of the process not yet joined, with a way to stop its loop.
///
/// A command must not exit while a client's thread still runs: `exit` runs the libraries' exit
/// handlers (OpenSSL's cleanup frees its locks) while the thread may still be in OpenSSL — its
/// loop, or the thread-local destructors that run after the loop returned — and the process
/// then dies of a bad pointer instead of exiting with its status. That happened to `pushlab
/// send apns --tokens` with a missing file, about 1 run in 400 (`BadInputCorpusTests` in CI,
/// 2026-12-07): the error unwound past the clients, whose `deinit` only asks their loops to
/// finish. Hence no thread is ever detached: a dropped client's thread is joined by the next
/// client started after it finished, or by `endAll`, which `main` calls before `exit` (after a
/// clean `shutdown()` nothing is left and it returns at once).
public enum ClientLoopThreads {
    private struct Entry {
        var thread: pthread_t
        var stop: @Sendable () -> Void
        var orphaned = false
    }

    private struct Threads {
        var next = 0
        var entries: [Int: Entry] = [:]
    }

    private static let threads = SanitizerVisibleMutex(Threads())

    static func started(_ thread: pthread_t, stop: @escaping @Sendable () -> Void) -> Int {
        threads.withLock { t in
            // Threads of dropped clients that have finished by now: joined here, so a long-running
            // process that drops clients keeps no finished thread (and its stack) around.
            for (id, entry) in t.entries where entry.orphaned && cpl_thread_tryjoin(entry.thread) == 0 {
                t.entries[id] = nil
            }
            t.next += 1
            t.entries[t.next] = Entry(thread: thread, stop: stop)
            return t.next
        }
    }

    /// Joins `id`'s thread unless someone else took it (the join is done by whoever removes it).
    static func join(_ id: Int) {
        if let entry = threads.withLock({ $0.entries.removeValue(forKey: id) }) { pthread_join(entry.thread, nil) }
    }

    static func orphan(_ id: Int) {
        threads.withLock { t in t.entries[id]?.orphaned = true }
    }

    /// How many client loop threads have not been joined.
    public static var count: Int { threads.withLock { $0.entries.count } }

    /// Asks every client loop still running to stop (in-flight requests fail with `.shutDown`)
    /// and joins every client thread, waiting up to `limit` in all. False when a thread was still
    /// running then.
    @discardableResult
    public static func endAll(within limit: Duration) -> Bool {
        let entries = threads.withLock { t in
            defer { t.entries.removeAll() }
            return Array(t.entries.values)
        }
        for entry in entries { entry.stop() }
        var deadline = timespec()
        clock_gettime(CLOCK_REALTIME, &deadline)
        let (seconds, attoseconds) = limit.components
        deadline.tv_sec += Int(seconds)
        deadline.tv_nsec += Int(attoseconds / 1_000_000_000)
        if deadline.tv_nsec >= 1_000_000_000 { deadline.tv_sec += 1; deadline.tv_nsec -= 1_000_000_000 }
        var all = true
        for entry in entries where cpl_thread_timedjoin(entry.thread, &deadline) != 0 { all = false }
        return all
    }
}

import CPushLab
import Glibc

/// The thread a client's loop runs on (`HTTPClient`'s libcurl loop, `NGHTTP2Client`'s
/// nghttp2 loop): named `pushlab-client` (one per client: `top -H` and the tests count them),
/// SIGPIPE blocked (writes use MSG_NOSIGNAL, but a TLS alert on a closed socket must not kill
/// the process). Joined by `shutdown`, detached when a client is dropped without it.
final class ClientLoopThread: Sendable {
    private let handle: SanitizerVisibleMutex<pthread_t?>

    /// Starts `body` on a new thread; `body` and what it captures move to that thread.
    init(_ body: @escaping () -> Void) throws {
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
        handle = SanitizerVisibleMutex(thread)
    }

    /// Waits for the thread to end (once; later calls return at once).
    func join() {
        if let thread = handle.withLock({ $0.take() }) { pthread_join(thread, nil) }
    }

    /// Lets the thread finish on its own.
    func detach() {
        if let thread = handle.withLock({ $0.take() }) { pthread_detach(thread) }
    }
}

/// Carries the thread's body through pthread_create's context pointer.
private final class ThreadBody {
    let body: () -> Void
    init(_ body: @escaping () -> Void) { self.body = body }
}

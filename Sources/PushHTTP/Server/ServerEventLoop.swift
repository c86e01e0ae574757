import CPushLab
import Foundation
import Synchronization

/// Owns one libevent `event_base` and the thread that runs it.
///
/// Threads and what protects what:
/// - `queue`, `finished` and `waiters` are protected by their mutexes (`SanitizerVisibleMutex`); any thread may call
///   `execute(_:)` and `waitUntilFinished()`.
/// - Everything else of the server — the `ServerCore` (listeners, connections, nghttp2
///   sessions, streams) and every libevent/nghttp2 C callback — lives on the loop thread only:
///   libevent invokes callbacks on the thread that runs `event_base_loop`, and other threads
///   reach the core solely through `execute(_:)`, which queues a job and writes the eventfd that
///   wakes the loop. That is why this one type is `@unchecked Sendable`: `core` is handed only
///   to jobs running on the loop thread.
final class ServerEventLoop: @unchecked Sendable {
    typealias Job = @Sendable (ServerCore) -> Void

    let base: OpaquePointer
    private let wakeFD: Int32
    private var wakeEvent: OpaquePointer?
    private struct JobQueue {
        var jobs: [Job] = []
        /// Set once the loop ended and `wakeFD` is closed: later jobs are dropped.
        var closed = false
    }
    private let queue = SanitizerVisibleMutex(JobQueue())
    private let finished = SanitizerVisibleMutex<Bool>(false)
    private let waiters = SanitizerVisibleMutex<[CheckedContinuation<Void, Never>]>([])
    /// Loop thread only (and the starting thread before the loop thread exists).
    private(set) var core: ServerCore!

    init() throws(HTTPServerError) {
        guard let base = event_base_new() else { throw .eventLoopFailed("event_base_new failed") }
        let fd = cpl_server_eventfd()
        guard fd >= 0 else {
            event_base_free(base)
            throw .eventLoopFailed("eventfd: \(String(cString: strerror(errno)))")
        }
        self.base = base
        self.wakeFD = fd
    }

    /// Binds the listeners on the calling thread (so bind errors surface from `start()`), then
    /// starts the loop thread.
    func start(configuration: HTTPServerConfiguration, router: Router,
               role: ServerCore.Role = .acceptor(workers: [], connectionIDStride: 1)) throws(HTTPServerError) -> BoundAddresses {
        let core: ServerCore
        do {
            core = try ServerCore(loop: self, configuration: configuration, router: router, role: role)
        } catch {
            releaseBase()
            throw error
        }
        self.core = core
        registerWakeEvent()
        let running = DispatchSemaphore(value: 0)
        let thread = Thread { [self] in
            // Named from inside: Foundation on Linux does not pass Thread.name to the kernel,
            // and tools (top -H, perf, the leak test) find the loop by this name.
            _ = cpl_server_name_thread("pushlab-server")
            // A write to a socket the peer closed raises SIGPIPE in the writing thread; the
            // default action would kill the host process. Blocking it on this thread only
            // (instead of ignoring it process-wide) turns such writes into EPIPE errors.
            var pipeSignal = sigset_t()
            sigemptyset(&pipeSignal)
            sigaddset(&pipeSignal, SIGPIPE)
            pthread_sigmask(SIG_BLOCK, &pipeSignal, nil)
            running.signal()
            event_base_loop(base, 0)
            teardown()
        }
        thread.start()
        // Return only once the loop thread exists (named, signals set up): callers and tests
        // may look for it right away.
        running.wait()
        return core.boundAddresses
    }

    /// `InMemoryServerConnection`: a core without listeners and without a loop thread; the
    /// calling thread becomes the loop thread and drives it with `runOnce` and `finish`.
    func startWithoutListeners(configuration: HTTPServerConfiguration, router: Router) throws(HTTPServerError) -> ServerCore {
        let core: ServerCore
        do {
            core = try ServerCore(loop: self, configuration: configuration, router: router,
                                  role: .worker(firstConnectionID: 1, connectionIDStride: 1))
        } catch {
            releaseBase()
            throw error
        }
        self.core = core
        registerWakeEvent()
        return core
    }

    /// One loop iteration on the calling thread; `blocking` waits for at least one event.
    func runOnce(blocking: Bool) {
        event_base_loop(base, blocking ? EVLOOP_ONCE : EVLOOP_NONBLOCK)
    }

    /// Events that are active or made active for the next iteration.
    var hasActiveEvents: Bool { event_base_get_num_events(base, EVENT_BASE_COUNT_ACTIVE) > 0 }

    /// After `startWithoutListeners`: frees everything, as the loop thread does when it ends.
    func finish() { teardown() }

    /// Runs `job` on the loop thread. Safe from any thread, including the loop thread itself
    /// (the job then runs after the current callback returns). Dropped after the loop ended.
    /// Returns false (and drops the job) once the loop has ended.
    @discardableResult
    func execute(_ job: @escaping Job) -> Bool {
        queue.withLock { queue in
            guard !queue.closed else { return false }
            queue.jobs.append(job)
            // One wake-up per batch: the loop drains the whole queue each time it wakes. The
            // write happens under the lock so it can never hit a closed (or reused) descriptor.
            if queue.jobs.count == 1 {
                var one: UInt64 = 1
                _ = write(wakeFD, &one, 8)
            }
            return true
        }
    }

    /// Suspends until the loop thread has ended and freed everything.
    func waitUntilFinished() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = finished.withLock { done in
                if !done { waiters.withLock { $0.append(continuation) } }
                return done
            }
            if done { continuation.resume() }
        }
    }

    private func registerWakeEvent() {
        let context = Unmanaged.passUnretained(self).toOpaque()
        wakeEvent = event_new(base, wakeFD, Int16(EV_READ | EV_PERSIST), { _, _, context in
            Unmanaged<ServerEventLoop>.fromOpaque(context!).takeUnretainedValue().runJobs()
        }, context)
        event_add(wakeEvent, nil)
    }

    /// Loop thread: makes `event_base_loop` return once the current callback finishes.
    func exitLoop() { event_base_loopbreak(base) }

    private func runJobs() {
        var counter: UInt64 = 0
        _ = read(wakeFD, &counter, 8)
        let batch = queue.withLock { queue in
            let batch = queue.jobs
            queue.jobs.removeAll(keepingCapacity: true)
            return batch
        }
        for job in batch { job(core) }
        core.afterJobs()
    }

    /// Loop thread, after the loop returned: frees every C object, then wakes the waiters.
    private func teardown() {
        // Jobs queued before the loop ended still run (they may resume a waiting caller);
        // later ones are refused by `execute`.
        let leftover = queue.withLock { queue in
            queue.closed = true
            defer { queue.jobs.removeAll() }
            return queue.jobs
        }
        for job in leftover { job(core) }
        core.teardown()
        core = nil
        if let wakeEvent { event_free(wakeEvent) }
        wakeEvent = nil
        releaseBase()
        let resumed = finished.withLock { done in
            done = true
            return waiters.withLock { list in
                let all = list
                list.removeAll()
                return all
            }
        }
        for continuation in resumed { continuation.resume() }
    }

    private func releaseBase() {
        queue.withLock { queue in
            queue.closed = true
            queue.jobs.removeAll()
        }
        close(wakeFD)
        event_base_free(base)
    }
}

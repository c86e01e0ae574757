import Glibc
import Synchronization

/// The client's loop thread as a task executor: tasks that run with
/// `withTaskExecutorPreference(client.executor)` run their jobs on the loop thread between
/// turns of its HTTP library (libcurl or nghttp2). For them a request costs no thread
/// hand-off: the loop resumes the caller after a response by appending a job to a list only it
/// reads, runs that job (the caller's next `send` lands in the inbox while the loop is awake,
/// so no wakeup either), and starts the new transfer in the same turn — the shape of a single-threaded C event loop.
///
/// Jobs enqueued from other threads (a task first starting, a timer firing) go through the
/// inbox and wake the loop if it sleeps. Once the loop has finished, jobs go to the global
/// concurrent executor instead, so no task is ever stranded on a stopped client.
///
/// A task on this executor must not block its thread (a lock held for long, a blocking wait
/// on another thread): it would stall every transfer of the client while it does.
final class ClientLoopExecutor: TaskExecutor, @unchecked Sendable {
    private let inbox: ClientInbox
    /// The loop thread's pthread_t, 0 until the thread starts.
    private let loopThread = Atomic<UInt>(0)
    // Loop thread only (checked with `isLoopThread` before any access).
    private var local: [UnownedJob] = []
    private var running: [UnownedJob] = []
    private var acceptsLocal = false

    init(inbox: ClientInbox) {
        self.inbox = inbox
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        if isLoopThread && acceptsLocal {
            local.append(job)
        } else if !inbox.enqueue(job: job) {
            globalConcurrentExecutor.enqueue(ExecutorJob(job))
        }
    }

    private var isLoopThread: Bool { loopThread.load(ordering: .relaxed) == UInt(pthread_self()) }

    // MARK: loop side (the loop thread only)

    /// Called first thing on the loop thread.
    func attach() {
        loopThread.store(UInt(pthread_self()), ordering: .relaxed)
        acceptsLocal = true
    }

    var hasLocalJobs: Bool { !local.isEmpty }

    /// Runs `remote` (drained from the inbox), then every job enqueued on this thread until
    /// none is left (a job may enqueue more, e.g. a task group child waking its parent).
    /// Returns how many ran.
    @discardableResult
    func runJobs(_ remote: inout [UnownedJob]) -> Int {
        var count = remote.count
        for job in remote { job.runSynchronously(on: asUnownedTaskExecutor()) }
        remote.removeAll(keepingCapacity: true)
        while !local.isEmpty {
            swap(&local, &running)
            count += running.count
            for job in running { job.runSynchronously(on: asUnownedTaskExecutor()) }
            running.removeAll(keepingCapacity: true)
        }
        return count
    }

    /// The loop is stopping: from now on jobs go to the global executor, and so do the ones
    /// still queued here.
    func detach() {
        acceptsLocal = false
        forward(local)
        local.removeAll()
    }

    /// Hands jobs the loop will not run to the global concurrent executor.
    func forward(_ jobs: [UnownedJob]) {
        for job in jobs { globalConcurrentExecutor.enqueue(ExecutorJob(job)) }
    }
}

#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Runs every job the Swift concurrency runtime would hand to its global executor (the
/// cooperative thread pool) on the thread that enqueued it, before that enqueue returns.
///
/// Why: a handler that answers `.later` starts `Task.detached`; on the pool, the task's
/// allocations are freed on another thread after the fuzz input has returned, so libFuzzer sees
/// more mallocs than frees during the input and re-runs it under LeakSanitizer (about 20 ms per
/// input, measured on FuzzHTTP1). Run inline, a task is created, run and freed within the input:
/// the counts balance, leak checking stays on and catches real leaks, and there is no thread
/// hand-off per input.
///
/// How: the runtime's `swift_task_enqueueGlobal_hook` (exported by libswift_Concurrency), which
/// the runtime consults on every global enqueue. Jobs enqueued while one runs (a task resuming
/// another, an actor's processing job) are queued and run by the outermost call in FIFO order,
/// so jobs never nest. Delayed jobs (`Task.sleep`) keep the runtime's own timer and pool.
public enum InlineGlobalExecutor {
    /// `SWIFT_CC(swift) void (*)(Job *)`, the original enqueue the hook may forward to.
    typealias Original = @convention(thin) (UnownedJob) -> Void
    /// `SWIFT_CC(swift) void (*)(Job *, Original)`.
    typealias Hook = @convention(thin) (UnownedJob, Original) -> Void

    private struct State {
        var queue: [UnownedJob] = []
        var draining = false
    }

    private static let state = Mutex(State())

    /// Installs the hook once; call before the first input.
    public static func install() {
        // nil is RTLD_DEFAULT on glibc: the symbol as the process's loaded libraries define it.
        guard let symbol = dlsym(nil, "swift_task_enqueueGlobal_hook") else {
            fatalError("swift_task_enqueueGlobal_hook not found in the concurrency runtime")
        }
        let hook: Hook = { job, _ in InlineGlobalExecutor.enqueue(job) }
        symbol.assumingMemoryBound(to: Hook?.self).pointee = hook
    }

    static func enqueue(_ job: UnownedJob) {
        let runHere: Bool = state.withLock { s in
            s.queue.append(job)
            if s.draining { return false }
            s.draining = true
            return true
        }
        guard runHere else { return }
        while let next = state.withLock({ s -> UnownedJob? in
            if s.queue.isEmpty {
                s.draining = false
                return nil
            }
            return s.queue.removeFirst()
        }) {
            next.runSynchronously(on: executor.asUnownedSerialExecutor())
        }
    }

    /// The executor the jobs report running on; global jobs carry no isolation of their own.
    private static let executor = InlineExecutor()

    private final class InlineExecutor: SerialExecutor {
        func enqueue(_ job: consuming ExecutorJob) { InlineGlobalExecutor.enqueue(UnownedJob(job)) }
    }
}

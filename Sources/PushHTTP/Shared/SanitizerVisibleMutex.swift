import CPushLab
import Synchronization

/// A `Mutex` whose hand-overs ThreadSanitizer can see; use it for state several threads share
/// in the modules `make sanitize` runs under TSan (PushHTTP: the server's job queue and state,
/// the client's inbox and thread handle; PushDevice: the extension run's state and clocks;
/// PushRelay: every lock, since its queue, workers, budgets, metrics and webhooks are all shared
/// between client loops, the queue's threads and the API).
/// Elsewhere a plain `Mutex` does.
///
/// Why: `Synchronization.Mutex` on Linux locks with raw futex system calls inside the
/// toolchain's prebuilt, uninstrumented Synchronization module, so TSan sees no happens-before
/// edge between two `withLock` bodies on different threads and reports every access inside them
/// as a data race. Reproduced with a 25-line program (4 threads appending to an array only
/// inside `Mutex.withLock`: a "Swift access race" report, final count correct; with the
/// annotations below: no report). `make sanitize` hit it on `ServerEventLoop`'s job queue (8
/// reports, 2026-11-29) and on `ClientInbox` (then named CurlInbox: 11 reports in an earlier
/// run). Announcing the acquire and release on this object's address gives TSan the edge the futex provides; without
/// TSan the annotations are no-ops (see Sources/CPushLab/sanitizer_shim.c).
@usableFromInline package final class SanitizerVisibleMutex<Value>: Sendable {
    @usableFromInline let mutex: Mutex<Value>

    package init(_ initialValue: sending Value) {
        mutex = Mutex(initialValue)
    }

    /// Inlinable, so the calling module can specialize it for its types
    /// (benchmarks/results/design-measurements.md).
    @inlinable
    package func withLock<Result, E: Error>(_ body: (inout sending Value) throws(E) -> sending Result) throws(E) -> sending Result {
        try mutex.withLock { (value: inout sending Value) throws(E) -> sending Result in
            let token = Unmanaged.passUnretained(self).toOpaque()
            cpl_tsan_acquire(token)
            defer { cpl_tsan_release(token) }
            return try body(&value)
        }
    }
}

import Dispatch

/// Runs tasks on a serial `DispatchQueue`: a task that prefers it runs between the queue's own
/// blocks, on the thread that runs them.
final class SerialQueueExecutor: TaskExecutor, @unchecked Sendable {
    private let queue: DispatchQueue

    init(_ queue: DispatchQueue) {
        self.queue = queue
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}

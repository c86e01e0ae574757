import Foundation
import Synchronization

/// SIGINT and SIGTERM caught from the moment this is made: a signal that arrives before `wait()`
/// (e.g. right after the command printed its URL) is kept, not lost to the default action. Make
/// it before printing anything a caller may react to; `wait()` returns the first signal's number
/// and the command then shuts down gracefully instead of dying.
/// All state is touched under `lock`.
// NSLock, not Mutex: `DispatchSourceSignal` is not Sendable, so `sources` cannot live in a Mutex's state.
final class TerminationSignals: @unchecked Sendable {
    private var sources: [DispatchSourceSignal] = []
    private var received: Int32?
    private var continuation: CheckedContinuation<Int32, Never>?
    private let lock = NSLock()

    init() {
        let queue = DispatchQueue(label: "pushlab.signals")
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { [weak self] in self?.fire(number) }
            source.resume()
            sources.append(source)
        }
    }

    /// The first signal's number, once one arrived.
    func wait() async -> Int32 {
        await withCheckedContinuation { (c: CheckedContinuation<Int32, Never>) in
            let now: Int32? = lock.withLock {
                if let received { return received }
                continuation = c
                return nil
            }
            if let now { c.resume(returning: now) }
        }
    }

    private func fire(_ number: Int32) {
        let pending: CheckedContinuation<Int32, Never>? = lock.withLock {
            guard received == nil else { return nil }
            received = number
            defer { continuation = nil }
            return continuation
        }
        pending?.resume(returning: number)
    }
}

/// SIGQUIT asks a running command for its state (`pushlab relay`: what each part waits on,
/// docs/relay.md "Asking a node what it waits on"); Ctrl-\ sends it in a terminal. Ignored from
/// the moment this is made (never the default core dump), answered on stderr with the report
/// set by `answer(with:)`, and the command carries on. The report must only read locked state:
/// it is asked for when the process may be stuck.
// NSLock, not Mutex: `DispatchSourceSignal` is not Sendable.
final class StateDumpSignal: @unchecked Sendable {
    private var source: DispatchSourceSignal?
    private var report: (@Sendable () -> String)?
    private let lock = NSLock()

    init() {
        signal(SIGQUIT, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGQUIT, queue: DispatchQueue(label: "pushlab.state-dump"))
        source.setEventHandler { [weak self] in self?.fire() }
        source.resume()
        self.source = source
    }

    func answer(with report: @escaping @Sendable () -> String) {
        lock.withLock { self.report = report }
    }

    private func fire() {
        let report = lock.withLock { self.report }
        printError(report?() ?? "pushlab: SIGQUIT: still starting, no state to show yet")
    }
}

/// A bound on a graceful stop, kept by a plain thread: not a Dispatch timer or a sleeping task,
/// which a stalled process might never run. Unless `finish()` came first, `overrun` runs on that
/// thread once `limit` has passed; it is expected to end the process.
final class StopDeadline: @unchecked Sendable {
    private let condition = NSCondition()
    private var finished = false

    init(limit: Duration, overrun: @escaping @Sendable () -> Void) {
        let deadline = Date().addingTimeInterval(limit.seconds)
        let thread = Thread { [self] in
            condition.lock()
            while !finished && Date() < deadline { _ = condition.wait(until: deadline) }
            let done = finished
            condition.unlock()
            if !done { overrun() }
        }
        thread.name = "pushlab-stop-deadline"
        thread.start()
    }

    /// The stop ended in time: the deadline does nothing.
    func finish() {
        condition.lock()
        finished = true
        condition.signal()
        condition.unlock()
    }

    /// Runs `body` on the global executor and waits for it on this thread at most `seconds`;
    /// nil when it did not finish in time.
    static func run<T: Sendable>(within seconds: Double, _ body: @escaping @Sendable () async -> T) -> T? {
        let done = DispatchSemaphore(value: 0)
        let result = Mutex<T?>(nil)
        Task.detached {
            let value = await body()
            result.withLock { $0 = value }
            done.signal()
        }
        guard done.wait(timeout: .now() + seconds) == .success else { return nil }
        return result.withLock { $0 }
    }
}

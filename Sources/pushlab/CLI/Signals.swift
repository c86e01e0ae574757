import Foundation

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

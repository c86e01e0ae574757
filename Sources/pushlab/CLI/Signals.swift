import Foundation

/// Suspends until SIGINT or SIGTERM arrives and returns its number. The default actions are
/// ignored meanwhile so the command can shut down gracefully instead of dying.
func waitForTerminationSignal() async -> Int32 {
    await withCheckedContinuation { (continuation: CheckedContinuation<Int32, Never>) in
        let queue = DispatchQueue(label: "pushlab.signals")
        let once = SignalOnce(continuation)
        var sources: [DispatchSourceSignal] = []
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { once.fire(number) }
            source.resume()
            sources.append(source)
        }
        once.keep(sources)
    }
}

/// Resumes the continuation for the first signal only. All state is touched on the one serial
/// signal queue, or before any source was resumed.
private final class SignalOnce: @unchecked Sendable {
    private var continuation: CheckedContinuation<Int32, Never>?
    private var sources: [DispatchSourceSignal] = []
    private let lock = NSLock()

    init(_ continuation: CheckedContinuation<Int32, Never>) { self.continuation = continuation }

    func keep(_ sources: [DispatchSourceSignal]) { lock.withLock { self.sources = sources } }

    func fire(_ number: Int32) {
        let pending: CheckedContinuation<Int32, Never>? = lock.withLock {
            defer { continuation = nil }
            return continuation
        }
        pending?.resume(returning: number)
    }
}

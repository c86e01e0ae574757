import Foundation

/// Holds work (usually a server's `.later` handler) until the test opens it, and counts what
/// arrived: a test waits for "every request is in its handler" as an event instead of sleeping,
/// and decides exactly when the handlers may finish.
public final class Gate: @unchecked Sendable {
    private let lock = NSLock()
    // Protected by `lock`.
    private var arrivedCount = 0
    private var isOpen = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    /// Opens by itself when this many callers have arrived (nil: only `open()` opens it).
    private let opensAfter: Int?

    public init(opensAfter count: Int? = nil) { opensAfter = count }

    /// How many callers reached `pass()` so far.
    public var arrived: Int { lock.withLock { arrivedCount } }

    /// Returns once the gate is open (at once if it already is).
    public func pass() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumeNow = lock.withLock { () -> Bool in
                arrivedCount += 1
                if isOpen { return true }
                waiters.append(continuation)
                return false
            }
            if resumeNow { continuation.resume() } else if let opensAfter, arrived >= opensAfter { open() }
        }
    }

    /// Opens the gate: every waiting and future `pass()` returns.
    public func open() {
        let waiting = lock.withLock { () -> [CheckedContinuation<Void, Never>] in
            isOpen = true
            defer { waiters = [] }
            return waiters
        }
        waiting.forEach { $0.resume() }
    }
}

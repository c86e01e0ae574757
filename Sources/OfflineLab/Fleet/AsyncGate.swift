import Foundation
import PushDevice
import PushGateway
import PushHTTP

/// A gate tasks can wait on until it is open.
final class AsyncGate: @unchecked Sendable {
    // Protected by `lock`.
    private var isOpen = true
    private var waiters: [CheckedContinuation<Void, Never>] = []
    private let lock = NSLock()

    func close() { lock.withLock { isOpen = false } }

    func open() {
        let resumed: [CheckedContinuation<Void, Never>] = lock.withLock {
            isOpen = true
            defer { waiters.removeAll() }
            return waiters
        }
        for w in resumed { w.resume() }
    }

    func wait() async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let resumeNow = lock.withLock { () -> Bool in
                if isOpen { return true }
                waiters.append(c)
                return false
            }
            if resumeNow { c.resume() }
        }
    }
}

import Foundation
import PushDevice
import PushGateway
import PushHTTP
import Synchronization

/// A gate tasks can wait on until it is open.
final class AsyncGate: Sendable {
    private struct State {
        var isOpen = true
        var waiters: [CheckedContinuation<Void, Never>] = []
    }
    private let state = Mutex(State())

    func close() { state.withLock { $0.isOpen = false } }

    func open() {
        let resumed: [CheckedContinuation<Void, Never>] = state.withLock { state in
            state.isOpen = true
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for w in resumed { w.resume() }
    }

    func wait() async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let resumeNow = state.withLock { state -> Bool in
                if state.isOpen { return true }
                state.waiters.append(c)
                return false
            }
            if resumeNow { c.resume() }
        }
    }
}

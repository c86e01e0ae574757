import Foundation
import Synchronization

/// The console's push log: the newest `capacity` pushes in a ring, ids in arrival order, paged
/// newest first, and a wait for the live stream. Safe to use from any thread.
public final class ConsoleLog: PushLogFeed, Sendable {
    public let capacity: Int
    private let state = Mutex(State())

    private struct State {
        var ring: [LoggedPush] = []
        var latestID: Int64 = 0
        var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
        var nextWaiter: UInt64 = 0
        var closed = false
    }

    public init(capacity: Int = 100_000) {
        precondition(capacity > 0, "a log holds at least one push")
        self.capacity = capacity
    }

    public func append(_ push: LoggedPush) {
        var push = push
        let woken: [CheckedContinuation<Void, Never>] = state.withLock { state in
            state.latestID += 1
            push.id = state.latestID
            if state.ring.count < capacity { state.ring.append(push) } else { state.ring[Int((state.latestID - 1) % Int64(capacity))] = push }
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for w in woken { w.resume() }
    }

    public var count: Int { state.withLock { $0.ring.count } }
    /// Live-stream requests waiting for the next push now.
    public var waitingCount: Int { state.withLock { $0.waiters.count } }
    public var latest: Int64 { state.withLock { $0.latestID } }

    /// The push with `id`, if the log still holds it.
    public func push(id: Int64) -> LoggedPush? {
        state.withLock { state in slot(of: id, in: state).map { state.ring[$0] } }
    }

    /// Up to `limit` pushes older than `before` (nil: from the newest) that match `filter`, newest first.
    public func page(before: Int64? = nil, limit: Int, filter: LogFilter = LogFilter()) -> LogPage {
        state.withLock { state in
            var out: [LoggedPush] = []
            let oldest = state.latestID - Int64(state.ring.count) + 1
            var id = min(before.map { $0 - 1 } ?? state.latestID, state.latestID)
            while id >= oldest && out.count < limit {
                let p = state.ring[Int((id - 1) % Int64(capacity))]
                if filter.matches(p) { out.append(p) }
                id -= 1
            }
            return LogPage(pushes: out, total: state.ring.count, latestID: state.latestID, nextBefore: id >= oldest ? id + 1 : nil)
        }
    }

    /// Up to `limit` pushes newer than `after`, oldest first (the live stream's next batch).
    /// When the log has moved on past pushes it no longer holds, the batch starts at the oldest held.
    public func pushes(after: Int64, limit: Int) -> [LoggedPush] {
        state.withLock { state in
            let oldest = state.latestID - Int64(state.ring.count) + 1
            var id = max(after + 1, oldest)
            var out: [LoggedPush] = []
            while id <= state.latestID && out.count < limit {
                out.append(state.ring[Int((id - 1) % Int64(capacity))])
                id += 1
            }
            return out
        }
    }

    /// Returns once the log holds a push newer than `after`, after `timeout`, or once closed.
    public func waitForPushes(after: Int64, timeout: Duration) async {
        let key: UInt64? = state.withLock { state in
            guard !state.closed, state.latestID <= after else { return nil }
            state.nextWaiter += 1
            return state.nextWaiter
        }
        guard let key else { return }
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let resumeNow = state.withLock { state -> Bool in
                if state.closed || state.latestID > after { return true }
                state.waiters[key] = c
                return false
            }
            if resumeNow { c.resume(); return }
            Task { [weak self] in
                try? await Task.sleep(for: timeout)
                self?.wake(key)
            }
        }
    }

    /// Ends every wait now and every later one at once (the server is stopping).
    public func close() {
        let woken: [CheckedContinuation<Void, Never>] = state.withLock { state in
            state.closed = true
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for w in woken { w.resume() }
    }

    private func wake(_ key: UInt64) {
        let c = state.withLock { $0.waiters.removeValue(forKey: key) }
        c?.resume()
    }

    /// The ring index of `id`, or nil when the log never had it or has dropped it.
    private func slot(of id: Int64, in state: State) -> Int? {
        guard id >= 1, id <= state.latestID, id > state.latestID - Int64(state.ring.count) else { return nil }
        return Int((id - 1) % Int64(capacity))
    }
}

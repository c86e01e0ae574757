import Foundation

/// The console's push log: the newest `capacity` pushes in a ring, ids in arrival order, paged
/// newest first, and a wait for the live stream. Safe to use from any thread.
public final class ConsoleLog: PushLogFeed, @unchecked Sendable {
    public let capacity: Int
    // Everything below is protected by `lock`.
    private var ring: [LoggedPush] = []
    private var latestID: Int64 = 0
    private var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
    private var nextWaiter: UInt64 = 0
    private var closed = false
    private let lock = NSLock()

    public init(capacity: Int = 100_000) {
        precondition(capacity > 0, "a log holds at least one push")
        self.capacity = capacity
    }

    public func append(_ push: LoggedPush) {
        var push = push
        let woken: [CheckedContinuation<Void, Never>] = lock.withLock {
            latestID += 1
            push.id = latestID
            if ring.count < capacity { ring.append(push) } else { ring[Int((latestID - 1) % Int64(capacity))] = push }
            defer { waiters.removeAll() }
            return Array(waiters.values)
        }
        for w in woken { w.resume() }
    }

    public var count: Int { lock.withLock { ring.count } }
    /// Live-stream requests waiting for the next push now.
    public var waitingCount: Int { lock.withLock { waiters.count } }
    public var latest: Int64 { lock.withLock { latestID } }

    /// The push with `id`, if the log still holds it.
    public func push(id: Int64) -> LoggedPush? {
        lock.withLock { slot(of: id).map { ring[$0] } }
    }

    /// Up to `limit` pushes older than `before` (nil: from the newest) that match `filter`, newest first.
    public func page(before: Int64? = nil, limit: Int, filter: LogFilter = LogFilter()) -> LogPage {
        lock.withLock {
            var out: [LoggedPush] = []
            let oldest = latestID - Int64(ring.count) + 1
            var id = min(before.map { $0 - 1 } ?? latestID, latestID)
            while id >= oldest && out.count < limit {
                let p = ring[Int((id - 1) % Int64(capacity))]
                if filter.matches(p) { out.append(p) }
                id -= 1
            }
            return LogPage(pushes: out, total: ring.count, latestID: latestID, nextBefore: id >= oldest ? id + 1 : nil)
        }
    }

    /// Up to `limit` pushes newer than `after`, oldest first (the live stream's next batch).
    /// When the log has moved on past pushes it no longer holds, the batch starts at the oldest held.
    public func pushes(after: Int64, limit: Int) -> [LoggedPush] {
        lock.withLock {
            let oldest = latestID - Int64(ring.count) + 1
            var id = max(after + 1, oldest)
            var out: [LoggedPush] = []
            while id <= latestID && out.count < limit {
                out.append(ring[Int((id - 1) % Int64(capacity))])
                id += 1
            }
            return out
        }
    }

    /// Returns once the log holds a push newer than `after`, after `timeout`, or once closed.
    public func waitForPushes(after: Int64, timeout: Duration) async {
        let key: UInt64? = lock.withLock {
            guard !closed, latestID <= after else { return nil }
            nextWaiter += 1
            return nextWaiter
        }
        guard let key else { return }
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let resumeNow = lock.withLock { () -> Bool in
                if closed || latestID > after { return true }
                waiters[key] = c
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
        let woken: [CheckedContinuation<Void, Never>] = lock.withLock {
            closed = true
            defer { waiters.removeAll() }
            return Array(waiters.values)
        }
        for w in woken { w.resume() }
    }

    private func wake(_ key: UInt64) {
        let c = lock.withLock { waiters.removeValue(forKey: key) }
        c?.resume()
    }

    /// The ring index of `id`, or nil when the log never had it or has dropped it.
    private func slot(of id: Int64) -> Int? {
        guard id >= 1, id <= latestID, id > latestID - Int64(ring.count) else { return nil }
        return Int((id - 1) % Int64(capacity))
    }
}

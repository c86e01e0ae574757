import PushHTTP

/// The queue calls the workers are waiting on now, each with when it started: a state dump
/// (`Relay.stateReport`) names them with their ages, so a call whose answer never comes shows.
/// Two lock operations per call; the workers call the queue once per claim or batch.
final class PendingCalls: Sendable {
    private struct Open {
        var next = 0
        var calls: [Int: (name: String, start: ContinuousClock.Instant)] = [:]
    }
    private let open = SanitizerVisibleMutex(Open())

    /// Runs `body` as the pending call `name`.
    func track<T, E: Error>(_ name: String, _ body: () async throws(E) -> T) async throws(E) -> T {
        let id = open.withLock { o in
            o.next += 1
            o.calls[o.next] = (name, ContinuousClock.now)
            return o.next
        }
        defer { open.withLock { _ = $0.calls.removeValue(forKey: id) } }
        return try await body()
    }

    /// The calls pending now, oldest first, with how long each has waited.
    func pending(now: ContinuousClock.Instant) -> [(name: String, waited: Duration)] {
        open.withLock { o in o.calls.values.sorted { $0.start < $1.start }.map { ($0.name, now - $0.start) } }
    }
}

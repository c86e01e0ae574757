import Foundation

/// Emulated time that moves only when nothing else can: each extension run gets its own, and
/// when every task that joined is asleep on it (timers, back-offs, a simulated latency) it
/// jumps to the earliest wake-up. Real work — a request on the loopback network, a file
/// write — takes no emulated time, however slow the machine; so a run's outcome (image in
/// time, expiry, retries before the deadline) follows from its emulated durations alone and
/// not from the machine's load. A task blocked on anything else (a request held until a kill)
/// keeps time still. Transport timeouts are generous real durations: a request cannot time out
/// because the machine is busy.
public final class EventClock: NSEClock, @unchecked Sendable {
    private struct Sleeper { let deadline: Duration; let continuation: CheckedContinuation<Void, any Error> }
    /// The real timeout a transport gets for any emulated duration.
    public let realTimeout: Duration
    // Everything below is protected by `lock`.
    private var current: Duration = .zero
    private var participants = 0
    private var sleepers: [Int: Sleeper] = [:]
    private var nextID = 0
    private var cancelledIDs: Set<Int> = []
    private let lock = NSLock()

    public init(realTimeout: Duration = .seconds(60)) { self.realTimeout = realTimeout }

    public func now() -> Duration { lock.withLock { current } }
    public func realDuration(_ emulated: Duration) -> Duration { realTimeout }

    public func join() { lock.withLock { participants += 1 } }

    public func leave() {
        let due = lock.withLock { () -> [Sleeper] in
            participants -= 1
            return advanceLocked()
        }
        for s in due { s.continuation.resume() }
    }

    public func sleep(until deadline: Duration) async throws {
        try Task.checkCancellation()
        let id = lock.withLock { () -> Int in nextID += 1; return nextID }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let (now, due): (Result<Void, any Error>?, [Sleeper]) = lock.withLock {
                    if cancelledIDs.remove(id) != nil { return (.failure(CancellationError()), []) }
                    if deadline <= current { return (.success(()), []) }
                    sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    return (nil, advanceLocked())
                }
                if let now { continuation.resume(with: now) }
                for s in due { s.continuation.resume() }
            }
        } onCancel: {
            let sleeper = lock.withLock { () -> Sleeper? in
                guard let s = sleepers.removeValue(forKey: id) else {
                    cancelledIDs.insert(id)
                    return nil
                }
                return s
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// When every participant sleeps, moves to the earliest wake-up and takes its sleepers out.
    private func advanceLocked() -> [Sleeper] {
        guard !sleepers.isEmpty, sleepers.count >= participants, let next = sleepers.values.map(\.deadline).min() else { return [] }
        current = max(current, next)
        let due = sleepers.filter { $0.value.deadline <= current }
        for id in due.keys { sleepers.removeValue(forKey: id) }
        return Array(due.values)
    }
}

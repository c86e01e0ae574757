import Foundation
import PushHTTP

/// Emulated time that moves only when nothing else can: each extension run gets its own, and
/// when every task that joined is asleep on it (timers, back-offs, a simulated latency) it
/// jumps to the earliest wake-up. Real work — a request on the loopback network, a file
/// write — takes no emulated time, however slow the machine; so a run's outcome (image in
/// time, expiry, retries before the deadline) follows from its emulated durations alone and
/// not from the machine's load. A task blocked on anything else (a request held until a kill)
/// keeps time still. Transport timeouts are generous real durations: a request cannot time out
/// because the machine is busy.
public final class EventClock: NSEClock, Sendable {
    private struct Sleeper { let deadline: Duration; let continuation: CheckedContinuation<Void, any Error> }
    /// The real timeout a transport gets for any emulated duration.
    public let realTimeout: Duration
    private let state = SanitizerVisibleMutex(State())

    private struct State {
        var current: Duration = .zero
        var participants = 0
        var sleepers: [Int: Sleeper] = [:]
        var nextID = 0
        var cancelledIDs: Set<Int> = []

        /// When every participant sleeps, moves to the earliest wake-up and takes its sleepers out.
        mutating func advance() -> [Sleeper] {
            guard !sleepers.isEmpty, sleepers.count >= participants, let next = sleepers.values.map(\.deadline).min() else { return [] }
            current = max(current, next)
            let due = sleepers.filter { $0.value.deadline <= current }
            for id in due.keys { sleepers.removeValue(forKey: id) }
            return Array(due.values)
        }
    }

    public init(realTimeout: Duration = .seconds(60)) { self.realTimeout = realTimeout }

    public func now() -> Duration { state.withLock { $0.current } }
    public func realDuration(_ emulated: Duration) -> Duration { realTimeout }

    public func join() { state.withLock { $0.participants += 1 } }

    public func leave() {
        let due = state.withLock { state -> [Sleeper] in
            state.participants -= 1
            return state.advance()
        }
        for s in due { s.continuation.resume() }
    }

    public func sleep(until deadline: Duration) async throws {
        try Task.checkCancellation()
        let id = state.withLock { state -> Int in state.nextID += 1; return state.nextID }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let (now, due): (Result<Void, any Error>?, [Sleeper]) = state.withLock { state in
                    if state.cancelledIDs.remove(id) != nil { return (.failure(CancellationError()), []) }
                    if deadline <= state.current { return (.success(()), []) }
                    state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    return (nil, state.advance())
                }
                if let now { continuation.resume(with: now) }
                for s in due { s.continuation.resume() }
            }
        } onCancel: {
            let sleeper = state.withLock { state -> Sleeper? in
                guard let s = state.sleepers.removeValue(forKey: id) else {
                    state.cancelledIDs.insert(id)
                    return nil
                }
                return s
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }
}

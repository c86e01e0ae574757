import Foundation
import PushDevice

/// An `NSEClock` that stands still until the test moves it: sleepers wait for `advance(to:)`,
/// so a budget expires exactly when the test says and never because the machine is slow.
final class ManualNSEClock: NSEClock, @unchecked Sendable {
    private struct Sleeper { let id: Int; let deadline: Duration; let continuation: CheckedContinuation<Void, any Error> }
    private let lock = NSLock()
    // Protected by `lock`.
    private var current: Duration = .zero
    private var sleepers: [Sleeper] = []
    private var nextID = 0
    private var cancelledIDs: Set<Int> = []

    func now() -> Duration { lock.withLock { current } }

    /// Transport timeouts are emulated durations too (the scripted transport compares them).
    func realDuration(_ emulated: Duration) -> Duration { emulated }

    /// How many sleepers wait for a later instant.
    var waiting: Int { lock.withLock { sleepers.count } }

    func sleep(until deadline: Duration) async throws {
        let id = lock.withLock { () -> Int in nextID += 1; return nextID }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let resumeNow: Result<Void, any Error>? = lock.withLock {
                    if cancelledIDs.remove(id) != nil { return .failure(CancellationError()) }
                    if deadline <= current { return .success(()) }
                    sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    return nil
                }
                if let resumeNow { continuation.resume(with: resumeNow) }
            }
        } onCancel: {
            let sleeper: Sleeper? = lock.withLock {
                guard let index = sleepers.firstIndex(where: { $0.id == id }) else { cancelledIDs.insert(id); return nil }
                return sleepers.remove(at: index)
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves time to `instant` and wakes every sleeper whose deadline has come.
    func advance(to instant: Duration) {
        let due: [Sleeper] = lock.withLock {
            current = max(current, instant)
            let due = sleepers.filter { $0.deadline <= current }
            sleepers.removeAll { $0.deadline <= current }
            return due
        }
        for sleeper in due { sleeper.continuation.resume() }
    }
}

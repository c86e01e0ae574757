import Foundation

/// Batches changes that threads of one process make to one file into a single rewrite.
///
/// A caller queues its change; if no commit is running it becomes the leader, takes every change
/// queued so far (its own included) and hands them to `commit` in arrival order. Callers that
/// arrive meanwhile wait; when the leader is done, one of them leads the next batch. Every caller
/// returns only after the commit containing its change finished, with that change's own outcome
/// — so "returned" still means "in the file", as with one rewrite per change.
///
/// `commit` runs for one batch at a time: it may use state that only commits touch.
final class GroupCommit<Change: Sendable, Outcome: Sendable>: @unchecked Sendable {
    typealias Commit = ([Change]) -> [Result<Outcome, PendingMetricStoreError>]

    private let commit: Commit
    // Everything below is protected by `condition`.
    private let condition = NSCondition()
    private var queued: [(ticket: Int, change: Change)] = []
    private var outcomes: [Int: Result<Outcome, PendingMetricStoreError>] = [:]
    private var nextTicket = 0
    private var committing = false
    private var stats = GroupCommitStats()

    /// `commit` receives a batch and returns one outcome per change, in order.
    init(commit: @escaping Commit) { self.commit = commit }

    /// Queues `change`, waits for the commit that contains it and returns its outcome.
    func perform(_ change: Change) throws(PendingMetricStoreError) -> Outcome {
        condition.lock()
        let ticket = nextTicket
        nextTicket += 1
        queued.append((ticket, change))
        while committing && outcomes[ticket] == nil { condition.wait() }
        if let outcome = outcomes.removeValue(forKey: ticket) {
            condition.unlock()
            return try outcome.get()
        }
        // No commit running and this change not yet committed: lead the next batch.
        committing = true
        let batch = queued
        queued = []
        condition.unlock()

        let results = commit(batch.map(\.change))
        precondition(results.count == batch.count, "commit must return one outcome per change")

        condition.lock()
        for (entry, result) in zip(batch, results) { outcomes[entry.ticket] = result }
        stats.batches += 1
        stats.changes += batch.count
        stats.largestBatch = max(stats.largestBatch, batch.count)
        committing = false
        condition.broadcast()
        let mine = outcomes.removeValue(forKey: ticket)!
        condition.unlock()
        return try mine.get()
    }

    /// Changes waiting for the next commit (tests use it to know a batch has formed).
    var queuedCount: Int { condition.withLock { queued.count } }

    /// What was committed so far.
    var statistics: GroupCommitStats { condition.withLock { stats } }
}

/// How many commits a `GroupCommit` ran and how many changes they carried.
struct GroupCommitStats: Sendable, Equatable {
    var batches = 0
    var changes = 0
    var largestBatch = 0
}

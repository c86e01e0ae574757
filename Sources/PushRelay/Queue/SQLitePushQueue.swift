import Foundation
import PushCore
import PushStore
import Synchronization

/// The embedded queue: one SQLite file (WAL, `synchronous=FULL`) in the relay's data
/// directory, owned by one relay process.
///
/// Every write (enqueue, complete, reschedule) goes through one writer that commits all writes
/// waiting at that moment in one transaction — group commit: under load one fsync acknowledges
/// many requests, and a caller returns only after the transaction holding its write committed.
/// Claims are not written at all: which unfinished targets are ready, waiting for a retry or
/// claimed lives in memory (`TargetSchedule`), rebuilt from the file on open, where every
/// unfinished target is ready again (a claim lost in a crash changes nothing). So a target
/// costs the file one row written at enqueue and one update at its final result. Reads
/// (claimed rows, status, deliveries) use a second connection, which WAL lets run beside the
/// writer. Checkpoints (copying the WAL back into the file) run on a third connection and
/// thread, not inside the writer's commits: a checkpoint copies and syncs up to a thousand
/// pages, and a result commit waiting behind it would hold up the sends.
public final class SQLitePushQueue: PushQueue {
    public struct Configuration: Sendable {
        /// Most unfinished targets (waiting + claimed) the queue holds; beyond it `enqueue` throws `.full`.
        public var capacity: Int
        /// `FULL` makes every commit durable against power loss, not just a crashed process.
        public var fsyncEveryCommit: Bool
        public init(capacity: Int = 2_000_000, fsyncEveryCommit: Bool = true) {
            self.capacity = capacity
            self.fsyncEveryCommit = fsyncEveryCommit
        }
    }

    public let path: String
    public let configuration: Configuration
    private let writer: SQLiteDatabase
    private let reader: SQLiteDatabase
    private let time: any TimeSource
    private let writerQueue = DispatchQueue(label: "pushlab.relay.queue.writer")
    private let checkpointer: SQLiteDatabase
    private let checkpointQueue = DispatchQueue(label: "pushlab.relay.queue.checkpoint")
    /// A checkpoint is started after this many commits (SQLite's own default is every 1,000 WAL
    /// pages; a result commit writes about ten).
    private static let commitsPerCheckpoint = 64
    /// Unfinished targets read per query when the queue opens.
    private static let openPage = 10_000
    private let state: Mutex<QueueState>

    /// What the writer, the claims and the readers share, under `state`.
    private struct QueueState {
        var pending: [PendingWrite] = []
        var draining = false
        var closed = false
        /// The unfinished targets: ready, waiting for a time, claimed.
        var schedule = TargetSchedule()
        var finished: Int
        /// The row id the next enqueued target gets: a push's targets have consecutive ids.
        var nextTargetID: Int64
        var commits = 0
        var writesCommitted = 0
        /// Commits since the last checkpoint started, and whether one runs.
        var commitsSinceCheckpoint = 0
        var checkpointRunning = false
    }

    /// Opens (creating if needed) the queue at `path`; a file written by an earlier version is
    /// converted first (`QueueSchema`).
    public init(path: String, configuration: Configuration = Configuration(), time: any TimeSource = SystemTimeSource()) throws(PushQueueError) {
        self.path = path
        self.configuration = configuration
        self.time = time
        do {
            writer = try SQLiteDatabase(path: path)
            try writer.execute(configuration.fsyncEveryCommit ? "PRAGMA synchronous=FULL" : "PRAGMA synchronous=NORMAL")
            try QueueSchema.prepare(writer)
            try writer.execute("PRAGMA wal_autocheckpoint=0")
            reader = try SQLiteDatabase(path: path)
            checkpointer = try SQLiteDatabase(path: path)
            try checkpointer.execute(configuration.fsyncEveryCommit ? "PRAGMA synchronous=FULL" : "PRAGMA synchronous=NORMAL")
            let now = time.now.timeIntervalSince1970
            var schedule = TargetSchedule()
            // In pages by id: a million unfinished targets read at once would be a million rows in memory.
            var after: Int64 = 0
            while true {
                let rows = try writer.query(QueueStatements.unfinishedTargets, [.integer(after), .int(Self.openPage)])
                for row in rows { schedule.add(Int64(row.int(0) ?? 0), readyAt: row.double(1) ?? 0, now: now) }
                guard rows.count == Self.openPage, let last = rows.last?.int(0) else { break }
                after = Int64(last)
            }
            let total = try writer.query(QueueStatements.countTargets).first?.int(0) ?? 0
            let lastID = try writer.query(QueueStatements.lastTargetID).first?.int(0) ?? 0
            state = Mutex(QueueState(schedule: schedule, finished: total - schedule.waiting, nextTargetID: Int64(lastID) + 1))
        } catch {
            throw .storage("\(error)")
        }
    }

    /// How many transactions committed and how many writes they carried (group commit at work).
    public var commitStatistics: (commits: Int, writes: Int) { state.withLock { ($0.commits, $0.writesCommitted) } }

    // MARK: - PushQueue

    public func enqueue(_ submission: PushSubmission) async throws(PushQueueError) -> EnqueueReceipt {
        let capacity = configuration.capacity
        return try await write { batch throws(PushQueueError) in
            let db = batch.db
            if let key = submission.idempotencyKey {
                let existing = try batch.sql { try db.query(QueueStatements.pushByIdempotencyKey, [.text(submission.app), .text(key)]).first }
                if let row = existing {
                    let pushID = row.string(0) ?? ""
                    if row.string(1) != submission.requestFingerprint {
                        throw .idempotencyConflict(key: key, pushID: pushID)
                    }
                    return EnqueueReceipt(pushID: pushID, targetCount: row.int(2) ?? 0,
                                          acceptedAt: Date(timeIntervalSince1970: row.double(3) ?? 0), isReplay: true)
                }
            }
            guard batch.unfinished + submission.targets.count <= capacity else {
                throw .full(unfinished: batch.unfinished, incoming: submission.targets.count, capacity: capacity)
            }
            let accepted = submission.acceptedAt.timeIntervalSince1970
            let first = batch.nextTargetID
            try batch.sql {
                try db.run(QueueStatements.insertPush, [
                    .text(submission.id), .text(submission.app), .blob(submission.content), .int(submission.targets.count),
                    .real(accepted), .text(submission.idempotencyKey), .text(submission.requestFingerprint), .integer(first),
                ])
                let pushRow = db.lastInsertRowID
                for (index, target) in submission.targets.enumerated() {
                    try db.run(QueueStatements.insertTarget, [
                        .integer(first + Int64(index)), .integer(pushRow), .int(index), .text(submission.app), .text(target.kind.rawValue),
                        .text(target.value), .text(target.environment?.rawValue), .real(accepted),
                    ])
                }
            }
            let count = Int64(submission.targets.count)
            batch.nextTargetID += count
            batch.unfinished += submission.targets.count
            batch.added.append((first..<first + count, accepted))
            return EnqueueReceipt(pushID: submission.id, targetCount: submission.targets.count,
                                  acceptedAt: submission.acceptedAt, isReplay: false)
        }
    }

    /// Takes ready targets from the schedule (no write: see the type's comment) and reads
    /// their rows; a push's targets have consecutive ids, so a run of them is one range read.
    public func claim(consumer: String, limit: Int, lease: Duration) async throws(PushQueueError) -> [ClaimedTarget] {
        guard limit > 0 else { return [] }
        let now = time.now.timeIntervalSince1970
        let leaseEnd = now + Double(lease.components.seconds) + Double(lease.components.attoseconds) / 1e18
        let ids = try state.withLock { s throws(PushQueueError) in
            if s.closed { throw .closed }
            return s.schedule.claim(limit: limit, now: now, leaseEnd: leaseEnd)
        }
        if ids.isEmpty { return [] }
        do {
            return try readClaims(ids.sorted())
        } catch {
            // Not handed out: ready again at once.
            state.withLock { s in for id in ids { s.schedule.release(id, readyAt: now, now: now) } }
            throw error
        }
    }

    @discardableResult
    public func complete(_ results: [TargetCompletion]) async throws(PushQueueError) -> CompletionReport {
        guard !results.isEmpty else { return CompletionReport() }
        return try await write { batch throws(PushQueueError) in
            let db = batch.db
            var report = CompletionReport()
            // Each push's counters move once per batch, not once per target.
            var counts: [PushID: (sent: Int, failed: Int)] = [:]
            var finished: [Int64] = []
            finished.reserveCapacity(results.count)
            try batch.sql {
                for (position, result) in results.enumerated() {
                    guard let row = Int64(result.claim.receipt) else {
                        report.ignoredPositions.append(position)
                        continue
                    }
                    let o = result.outcome
                    let changed = try db.run(QueueStatements.completeTarget, [
                        .text(o.status.rawValue), .int(o.httpStatus), .text(o.reason), .text(o.providerID),
                        .integer(o.tokenInvalid ? 1 : 0), .int(o.attempts), .real(o.finishedAt.timeIntervalSince1970), .integer(row),
                    ])
                    guard changed == 1 else {
                        report.duplicates += 1
                        report.ignoredPositions.append(position)
                        continue
                    }
                    report.recorded += 1
                    finished.append(row)
                    if o.status == .sent { counts[result.claim.pushID, default: (0, 0)].sent += 1 }
                    else { counts[result.claim.pushID, default: (0, 0)].failed += 1 }
                    if o.tokenInvalid {
                        try db.run(QueueStatements.insertInvalidToken, [
                            .text(result.claim.app), .text(result.claim.target.kind.rawValue), .text(result.claim.target.value),
                            .text(o.reason ?? "invalid"), .text(result.claim.pushID), .real(o.finishedAt.timeIntervalSince1970),
                        ])
                    }
                }
                for (pushID, n) in counts {
                    let counted = try db.query(QueueStatements.countResults, [.int(n.sent), .int(n.failed), .text(pushID)])
                    if counted.first?.int(0) == 1 { report.finishedPushes.insert(pushID) }
                }
            }
            batch.unfinished -= report.recorded
            batch.finished += finished
            return report
        }
    }

    public func reschedule(_ retries: [TargetRetry]) async throws(PushQueueError) {
        guard !retries.isEmpty else { return }
        try await write { batch throws(PushQueueError) in
            let db = batch.db
            var released: [(id: Int64, readyAt: Double)] = []
            try batch.sql {
                for retry in retries {
                    // Only a claimed target goes back (rule 5): not a final one, not one whose
                    // lease ran out and that is ready already.
                    guard let row = Int64(retry.claim.receipt), self.state.withLock({ $0.schedule.isClaimed(row) }) else { continue }
                    let notBefore = retry.notBefore.timeIntervalSince1970
                    if try db.run(QueueStatements.rescheduleTarget, [.real(notBefore), .int(retry.attempts), .text(retry.lastError), .integer(row)]) == 1 {
                        released.append((row, notBefore))
                    }
                }
            }
            batch.released += released
        }
    }

    /// Claims live in memory, so after a restart there are none to release: every unfinished
    /// target is ready from the start. Within one process this releases every claim.
    @discardableResult
    public func recoverAbandoned() async throws(PushQueueError) -> Int {
        let now = time.now.timeIntervalSince1970
        return try state.withLock { s throws(PushQueueError) in
            if s.closed { throw .closed }
            return s.schedule.releaseAll(now: now)
        }
    }

    public func depth() async throws(PushQueueError) -> QueueDepth {
        try state.withLock { s throws(PushQueueError) in
            if s.closed { throw .closed }
            return QueueDepth(waiting: s.schedule.waiting, claimed: s.schedule.claimedCount, finished: s.finished)
        }
    }

    public func status(of push: PushID, includeTargets: Bool) async throws(PushQueueError) -> PushStatus? {
        try readChecked()
        let rows: (push: SQLiteRow, targets: [SQLiteRow])? = try Self.sql {
            guard let row = try reader.query(QueueStatements.pushByID, [.text(push)]).first else { return nil }
            guard includeTargets, let first = row.int(6) else { return (row, []) }
            let count = row.int(3) ?? 0
            return (row, try reader.query(QueueStatements.targetsInRange, [.int(first), .int(first + count)]))
        }
        guard let (row, targetRows) = rows else { return nil }
        var status = PushStatus(pushID: push, app: row.string(1) ?? "", acceptedAt: Date(timeIntervalSince1970: row.double(2) ?? 0),
                                targetCount: row.int(3) ?? 0, sent: row.int(4) ?? 0, failed: row.int(5) ?? 0, targets: [])
        if !targetRows.isEmpty {
            let claimed = state.withLock { s in targetRows.map { s.schedule.isClaimed(Int64($0.int(0) ?? 0)) } }
            status.targets = zip(targetRows, claimed).map { Self.targetState($0, claimed: $1) }
        }
        return status
    }

    public func deliveries(app: String, token: String?, since: Date?, limit: Int) async throws(PushQueueError) -> [DeliveryRecord] {
        try readChecked()
        let since = since?.timeIntervalSince1970 ?? -Double.greatestFiniteMagnitude
        return try Self.sql {
            let rows: [SQLiteRow]
            if let token {
                rows = try reader.query(QueueStatements.deliveriesOfToken, [.text(app), .text(token), .real(since), .int(limit)])
            } else {
                rows = try reader.query(QueueStatements.deliveriesOfApp, [.text(app), .real(since), .int(limit)])
            }
            return rows.map { row in
                DeliveryRecord(pushID: row.string(0) ?? "", index: row.int(1) ?? 0,
                               target: Self.target(kind: row.string(2), value: row.string(3), environment: row.string(4)),
                               outcome: Self.outcome(row, from: 5))
            }
        }
    }

    public func invalidTokens(app: String, since: Date?, limit: Int) async throws(PushQueueError) -> [InvalidToken] {
        try readChecked()
        let since = since?.timeIntervalSince1970 ?? -Double.greatestFiniteMagnitude
        return try Self.sql {
            try reader.query(QueueStatements.invalidTokensOfApp, [.text(app), .real(since), .int(limit)]).map { row in
                InvalidToken(token: row.string(1) ?? "", kind: PushTarget.Kind(rawValue: row.string(0) ?? "") ?? .apnsToken,
                             reason: row.string(2) ?? "", pushID: row.string(3) ?? "",
                             reportedAt: Date(timeIntervalSince1970: row.double(4) ?? 0))
            }
        }
    }

    public func nextReadyDate() async throws(PushQueueError) -> Date? {
        let now = time.now.timeIntervalSince1970
        return try state.withLock { s throws(PushQueueError) in
            if s.closed { throw .closed }
            return s.schedule.nextReadyTime(now: now).map { Date(timeIntervalSince1970: $0) }
        }
    }

    public func close() async {
        // Let writes already handed over finish, then refuse new ones.
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            writerQueue.async { c.resume() }
        }
        let pending: [PendingWrite] = state.withLock { s in
            s.closed = true
            defer { s.pending = [] }
            return s.draining ? [] : s.pending
        }
        for write in pending { write.finish(.closed) }
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            checkpointQueue.async {
                self.checkpointer.close()
                c.resume()
            }
        }
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            writerQueue.async {
                self.writer.close()
                self.reader.close()
                c.resume()
            }
        }
    }

    // MARK: - Group commit

    /// What one batch's writes share: the connection, the unfinished count and next target id
    /// as they will be after the commit, what the commit changes in the schedule, and the first
    /// storage error (after which the batch rolls back).
    fileprivate struct Batch {
        let db: SQLiteDatabase
        var unfinished: Int
        var nextTargetID: Int64
        /// Targets enqueued: their ids and when they are ready.
        var added: [(ids: Range<Int64>, readyAt: Double)] = []
        /// Targets given their final result.
        var finished: [Int64] = []
        /// Claimed targets given back, ready at a time.
        var released: [(id: Int64, readyAt: Double)] = []
        var storageError: PushQueueError?

        /// Runs SQLite calls, turning their errors into `.storage` and remembering the first.
        mutating func sql<T>(_ body: () throws -> T) throws(PushQueueError) -> T {
            do {
                return try body()
            } catch {
                let failure = PushQueueError.storage("\(error)")
                if storageError == nil { storageError = failure }
                throw failure
            }
        }
    }

    /// One caller's write: `apply` runs inside the batch's transaction and returns how to
    /// answer the caller once the commit's outcome is known; `finish` answers without running.
    fileprivate struct PendingWrite: Sendable {
        let apply: @Sendable (inout Batch) -> @Sendable (PushQueueError?) -> Void
        let finish: @Sendable (PushQueueError) -> Void
    }

    /// Runs `body` in the next group commit and returns its value once that commit is durable.
    private func write<T: Sendable>(_ body: @escaping @Sendable (inout Batch) throws(PushQueueError) -> T) async throws(PushQueueError) -> T {
        let result: Result<T, PushQueueError> = await withCheckedContinuation { continuation in
            let pending = PendingWrite(
                apply: { batch in
                    do throws(PushQueueError) {
                        let value = try body(&batch)
                        return { commitError in continuation.resume(returning: commitError.map { .failure($0) } ?? .success(value)) }
                    } catch {
                        // A refusal (full, conflict) changed nothing; a storage error fails the batch.
                        return { commitError in continuation.resume(returning: .failure(commitError ?? error)) }
                    }
                },
                finish: { error in continuation.resume(returning: .failure(error)) })
            let startDrain: Bool? = state.withLock { s in
                if s.closed { return nil }
                s.pending.append(pending)
                defer { s.draining = true }
                return !s.draining
            }
            switch startDrain {
            case nil: pending.finish(.closed)
            case true?: writerQueue.async { self.drain() }
            case false?: break
            }
        }
        return try result.get()
    }

    /// Commits everything pending, batch after batch, until nothing is left.
    private func drain() {
        while true {
            let (writes, unfinished, nextTargetID): ([PendingWrite], Int, Int64) = state.withLock { s in
                let writes = s.pending
                s.pending = []
                if writes.isEmpty { s.draining = false }
                return (writes, s.schedule.waiting + s.schedule.claimedCount, s.nextTargetID)
            }
            if writes.isEmpty { return }
            var batch = Batch(db: writer, unfinished: unfinished, nextTargetID: nextTargetID)
            var answers: [@Sendable (PushQueueError?) -> Void] = []
            answers.reserveCapacity(writes.count)
            do {
                try writer.execute("BEGIN IMMEDIATE")
                for write in writes {
                    if let failed = batch.storageError {
                        write.finish(failed)
                        continue
                    }
                    answers.append(write.apply(&batch))
                }
                if let failed = batch.storageError {
                    try? writer.execute("ROLLBACK")
                    for answer in answers { answer(failed) }
                    continue
                }
                try writer.execute("COMMIT")
            } catch {
                try? writer.execute("ROLLBACK")
                let failure = PushQueueError.storage("\(error)")
                for answer in answers { answer(failure) }
                continue
            }
            let now = time.now.timeIntervalSince1970
            let checkpoint: Bool = state.withLock { s in
                s.nextTargetID = batch.nextTargetID
                for (ids, readyAt) in batch.added {
                    for id in ids { s.schedule.add(id, readyAt: readyAt, now: now) }
                }
                for id in batch.finished { s.schedule.finish(id) }
                s.finished += batch.finished.count
                // A target whose lease ran out meanwhile is ready already: `release` leaves it.
                for (id, readyAt) in batch.released { s.schedule.release(id, readyAt: readyAt, now: now) }
                s.commits += 1
                s.writesCommitted += writes.count
                s.commitsSinceCheckpoint += 1
                guard s.commitsSinceCheckpoint >= Self.commitsPerCheckpoint, !s.checkpointRunning, !s.closed else { return false }
                s.commitsSinceCheckpoint = 0
                s.checkpointRunning = true
                return true
            }
            for answer in answers { answer(nil) }
            if checkpoint { checkpointQueue.async { self.checkpoint() } }
        }
    }

    /// Copies what the WAL holds into the database file without waiting for the writer or the
    /// readers (PASSIVE: frames still in use stay for the next one). On its own connection and
    /// thread; a failure leaves the WAL to the next checkpoint (or the close).
    private func checkpoint() {
        if !state.withLock({ $0.closed }) { _ = try? checkpointer.query("PRAGMA wal_checkpoint(PASSIVE)") }
        state.withLock { $0.checkpointRunning = false }
    }

    // MARK: - Reading rows

    private func readChecked() throws(PushQueueError) {
        if state.withLock({ $0.closed }) { throw .closed }
    }

    private static func sql<T>(_ body: () throws -> T) throws(PushQueueError) -> T {
        do { return try body() } catch { throw .storage("\(error)") }
    }

    /// The rows of claimed targets `ids` (ascending), with their pushes' content, in order.
    private func readClaims(_ ids: [Int64]) throws(PushQueueError) -> [ClaimedTarget] {
        var pushes: [Int64: (id: PushID, app: String, content: [UInt8])] = [:]
        var claimed: [ClaimedTarget] = []
        claimed.reserveCapacity(ids.count)
        var start = 0
        while start < ids.count {
            // A run of consecutive ids: one range read.
            var end = start + 1
            while end < ids.count, ids[end] == ids[end - 1] + 1 { end += 1 }
            let rows = try Self.sql { try reader.query(QueueStatements.claimedRows, [.integer(ids[start]), .integer(ids[end - 1])]) }
            for row in rows {
                let pushRow = Int64(row.int(1) ?? 0)
                if pushes[pushRow] == nil {
                    guard let push = try readPush(row: pushRow) else { continue }
                    pushes[pushRow] = push
                }
                let push = pushes[pushRow]!
                claimed.append(ClaimedTarget(
                    pushID: push.id, index: row.int(2) ?? 0, app: push.app,
                    target: Self.target(kind: row.string(3), value: row.string(4), environment: row.string(5)),
                    content: push.content, attempts: row.int(6) ?? 0, receipt: String(row.int(0) ?? 0)))
            }
            start = end
        }
        return claimed
    }

    private func readPush(row: Int64) throws(PushQueueError) -> (id: PushID, app: String, content: [UInt8])? {
        try Self.sql {
            guard let r = try reader.query(QueueStatements.pushContent, [.integer(row)]).first else { return nil }
            return (r.string(0) ?? "", r.string(1) ?? "", r.blob(2) ?? [])
        }
    }

    private static func target(kind: String?, value: String?, environment: String?) -> PushTarget {
        PushTarget(kind: kind.flatMap(PushTarget.Kind.init(rawValue:)) ?? .apnsToken, value: value ?? "",
                   environment: environment.flatMap(APNsEnvironment.init(rawValue:)))
    }

    /// The outcome stored in columns `at…at+6`: status, http status, reason, provider id, invalid, attempts, finished at.
    private static func outcome(_ row: SQLiteRow, from at: Int) -> TargetOutcome {
        TargetOutcome(status: TargetOutcome.Status(rawValue: row.string(at) ?? "") ?? .failed, httpStatus: row.int(at + 1),
                      reason: row.string(at + 2), providerID: row.string(at + 3), tokenInvalid: row.int(at + 4) == 1,
                      attempts: row.int(at + 5) ?? 0, finishedAt: Date(timeIntervalSince1970: row.double(at + 6) ?? 0))
    }

    /// A row of `targetsInRange`; `claimed`: the schedule has it claimed.
    private static func targetState(_ row: SQLiteRow, claimed: Bool) -> TargetState {
        let finished = row.int(5) == QueueSchema.finished
        let outcome = finished ? Self.outcome(row, from: 8) : nil
        let phase: TargetState.Phase = finished ? (outcome?.status == .sent ? .sent : .failed) : claimed ? .claimed : .waiting
        return TargetState(index: row.int(1) ?? 0, target: target(kind: row.string(2), value: row.string(3), environment: row.string(4)),
                           phase: phase, attempts: row.int(6) ?? 0, lastError: row.string(7), outcome: outcome)
    }
}

import Foundation
import PushCore
import PushHTTP
import PushStore

/// The embedded queue: one SQLite file (WAL) in the relay's data directory, owned by one relay
/// process.
///
/// Every write (enqueue, complete, reschedule) goes through one writer that commits all writes
/// waiting at that moment in one transaction — group commit: under load one fsync acknowledges
/// many requests, and a caller returns only after the transaction holding its write committed.
/// With `fsyncEveryCommit`, a commit that queues pushes is on disk before it returns
/// (`synchronous=FULL`); a commit of results and retries only is not synced by itself
/// (`NORMAL`: it survives a crash of the process at once). The WAL is synced by the next commit
/// that queues pushes, by a checkpoint, or at most `resultSyncDelay` later, whichever comes first:
/// a power loss can take back the results of that last moment, and their targets are then sent
/// again (at least once). An fsync per result batch cost the relay more CPU than the batch's SQL.
/// Claims are not written at all: which unfinished targets are ready, waiting for a retry or
/// claimed lives in memory (`TargetSchedule`), rebuilt from the file on open, where every
/// unfinished target is ready again (a claim lost in a crash changes nothing). So a target
/// costs the file one row written at enqueue and one update at its final result. Reads
/// (claimed rows, status, deliveries) use a second connection, which WAL lets run beside the
/// writer. Checkpoints (copying the WAL back into the file) run on a third connection and
/// thread, not inside the writer's commits: a checkpoint copies and syncs up to a thousand
/// pages, and a result commit waiting behind it would hold up the sends. But such a checkpoint,
/// beside a writer that keeps committing, never finds the WAL copied to its end, and the WAL
/// starts over from its beginning only after one did: under a steady load it grew without end.
/// So once the checkpoint thread finds the WAL at `walBackstopPages`, the writer runs the next
/// checkpoint itself before its next transaction, copying the little that thread has not, and
/// that transaction starts the WAL over (`journal_size_limit` cuts a WAL that a long read made
/// longer back to that size); SQLite's own automatic checkpoint at that length is the last resort.
public final class SQLitePushQueue: PushQueue {
    public struct Configuration: Sendable {
        /// Most unfinished targets (waiting + claimed) the queue holds; beyond it `enqueue` throws `.full`.
        public var capacity: Int
        /// `FULL` makes every commit durable against power loss, not just a crashed process.
        public var fsyncEveryCommit: Bool
        /// How long a result commit may stay unsynced (with `fsyncEveryCommit`).
        public var resultSyncDelay: Duration
        /// WAL pages (4 KiB each) from which the writer runs the checkpoint itself, and the
        /// size the WAL file is cut back to when it starts over: the WAL's bound under a steady
        /// load (16 MiB by default), while no read holds it longer.
        public var walBackstopPages: Int
        public init(capacity: Int = 2_000_000, fsyncEveryCommit: Bool = true, resultSyncDelay: Duration = .seconds(1),
                    walBackstopPages: Int = 4_096) {
            self.capacity = capacity
            self.fsyncEveryCommit = fsyncEveryCommit
            self.resultSyncDelay = resultSyncDelay
            self.walBackstopPages = walBackstopPages
        }
    }

    public let path: String
    public let configuration: Configuration
    private let writer: SQLiteDatabase
    private let reader: SQLiteDatabase
    private let time: any TimeSource
    private let writerQueue = DispatchQueue(label: "pushlab.relay.queue.writer")
    /// The writer's queue as a task executor: the relay's recorder runs there, so a batch of
    /// results reaches the writer, and its commit's answer comes back, with no thread switch.
    public let writerExecutor: (any TaskExecutor)?
    private let checkpointer: SQLiteDatabase
    private let checkpointQueue = DispatchQueue(label: "pushlab.relay.queue.checkpoint")
    /// A checkpoint is started after this many commits (SQLite's own default is every 1,000 WAL
    /// pages; a result commit writes about ten).
    private static let commitsPerCheckpoint = 64
    /// The pragma that makes a connection's commits synced (`FULL`) or not (`NORMAL`).
    private static func synchronous(_ syncs: Bool) -> String { syncs ? "PRAGMA synchronous=FULL" : "PRAGMA synchronous=NORMAL" }
    /// Unfinished targets read per query when the queue opens.
    private static let openPage = 10_000
    /// A `SanitizerVisibleMutex`: the writer, the checkpoint thread and the callers' tasks all
    /// take it, and ThreadSanitizer must see those hand-overs (docs/hardening.md).
    private let state: SanitizerVisibleMutex<QueueState>

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
        /// Whether the writer connection syncs its commits now (`synchronous=FULL`).
        var writerSyncs: Bool
        /// Commits synced by themselves, and WAL syncs of result commits (`syncResults`).
        var syncedCommits = 0
        var resultSyncs = 0
        /// Result commits since the WAL was last synced, and whether a `syncResults` is due.
        var unsyncedCommits = 0
        var resultSyncScheduled = false
        /// Commits since the last checkpoint started, and whether one runs.
        var commitsSinceCheckpoint = 0
        var checkpointRunning = false
        /// The checkpoint thread found the WAL at `walBackstopPages` or more: the writer runs
        /// the next checkpoint itself, before its next transaction (`checkpoint`).
        var writerCheckpoints = false
    }

    /// Opens (creating if needed) the queue at `path`; a file written by an earlier version is
    /// converted first (`QueueSchema`).
    public init(path: String, configuration: Configuration = Configuration(), time: any TimeSource = SystemTimeSource()) throws(PushQueueError) {
        self.path = path
        self.configuration = configuration
        self.time = time
        writerExecutor = SerialQueueExecutor(writerQueue)
        do {
            writer = try SQLiteDatabase(path: path)
            try writer.execute(Self.synchronous(configuration.fsyncEveryCommit))
            try QueueSchema.prepare(writer)
            // The checkpoint thread does the bulk, then hands over to the writer (`checkpoint`);
            // this is the last resort (it gives up while that thread's checkpoint runs).
            try writer.execute("PRAGMA wal_autocheckpoint=\(configuration.walBackstopPages)")
            let pageSize = try writer.query("PRAGMA page_size").first?.int(0) ?? 4_096
            _ = try writer.query("PRAGMA journal_size_limit=\(configuration.walBackstopPages * pageSize)")
            reader = try SQLiteDatabase(path: path)
            checkpointer = try SQLiteDatabase(path: path)
            try checkpointer.execute(Self.synchronous(configuration.fsyncEveryCommit))
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
            state = SanitizerVisibleMutex(QueueState(schedule: schedule, finished: total - schedule.waiting, nextTargetID: Int64(lastID) + 1,
                                     writerSyncs: configuration.fsyncEveryCommit))
        } catch {
            throw .storage("\(error)")
        }
    }

    /// How many transactions committed and how many writes they carried (group commit at work);
    /// how many of the commits were synced by themselves, and how many later WAL syncs covered
    /// result commits.
    public var commitStatistics: (commits: Int, writes: Int, synced: Int, resultSyncs: Int) {
        state.withLock { ($0.commits, $0.writesCommitted, $0.syncedCommits, $0.resultSyncs) }
    }

    // MARK: - PushQueue

    public func enqueue(_ submission: PushSubmission) async throws(PushQueueError) -> EnqueueReceipt {
        let capacity = configuration.capacity
        return try await write { batch throws(PushQueueError) in
            let db = batch.db
            if let key = submission.idempotencyKey {
                let existing = try batch.sql { try db.query(QueueStatements.pushByIdempotencyKey, [.text(submission.app), .text(key)]).first }
                if let row = existing {
                    let pushID = PushID(row.string(0) ?? "")
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
                    .text(submission.id.rawValue), .text(submission.app), .blob(submission.content), .int(submission.targets.count),
                    .real(accepted), .text(submission.idempotencyKey), .text(submission.requestFingerprint), .integer(first),
                ])
                try Self.insertTargets(submission, first: first, pushRow: db.lastInsertRowID, db: db)
            }
            let count = Int64(submission.targets.count)
            batch.nextTargetID += count
            batch.unfinished += submission.targets.count
            batch.added.append((first..<first + count, accepted))
            return EnqueueReceipt(pushID: submission.id, targetCount: submission.targets.count,
                                  acceptedAt: submission.acceptedAt, isReplay: false)
        }
    }

    /// One row per target of `submission`, with the ids `first…`: one prepared statement for
    /// them all, the push's row, app and time bound once, the rest per row (`insertTarget`).
    private static func insertTargets(_ submission: PushSubmission, first: Int64, pushRow: Int64, db: SQLiteDatabase) throws {
        try db.withStatement(QueueStatements.insertTarget) { insert in
            try insert.bind(2, pushRow)
            try insert.bind(4, submission.app)
            try insert.bind(8, submission.acceptedAt.timeIntervalSince1970)
            for (index, target) in submission.targets.enumerated() {
                try insert.bind(1, first + Int64(index))
                try insert.bind(3, index)
                insert.stage(5, target.kind.rawValue)
                insert.stage(6, target.value)
                insert.stage(7, target.environment?.rawValue)
                try insert.insertStaged()
            }
        }
    }

    /// Takes ready targets from the schedule (no write: see the type's comment) and reads
    /// their rows; a push's targets have consecutive ids, so a run of them is one range read.
    public func claim(consumer: String, limit: Int, lease: Duration) async throws(PushQueueError) -> [ClaimedTarget] {
        guard limit > 0 else { return [] }
        let now = time.now.timeIntervalSince1970
        let leaseEnd = now + lease.seconds
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

    /// Extends the in-memory leases of targets still claimed (nothing is written: claims live in
    /// memory, see `TargetSchedule`).
    public func renew(receipts: [String], lease: Duration) async throws(PushQueueError) {
        guard !receipts.isEmpty else { return }
        let leaseEnd = time.now.timeIntervalSince1970 + lease.seconds
        try state.withLock { s throws(PushQueueError) in
            if s.closed { throw .closed }
            for receipt in receipts {
                if let row = Int64(receipt) { _ = s.schedule.renew(row, leaseEnd: leaseEnd) }
            }
        }
    }

    @discardableResult
    public func complete(_ results: [TargetCompletion]) async throws(PushQueueError) -> CompletionReport {
        guard !results.isEmpty else { return CompletionReport() }
        return try await write(syncs: false) { batch throws(PushQueueError) in
            let db = batch.db
            var report = CompletionReport()
            var finished: [Int64] = []
            finished.reserveCapacity(results.count)
            try batch.sql {
                let counts = try Self.recordResults(results, db: db, report: &report, finished: &finished)
                for n in counts {
                    let counted = try db.query(QueueStatements.countResults, [.int(n.sent), .int(n.failed), .text(n.pushID.rawValue)])
                    if counted.first?.int(0) == 1 { report.finishedPushes.insert(n.pushID) }
                }
            }
            batch.unfinished -= report.recorded
            batch.finished += finished
            return report
        }
    }

    /// Writes each result a target does not have yet (`completeTarget`: one prepared statement
    /// for the batch, its parameters bound per row) and the invalid tokens among them; counts in
    /// `report` what was recorded and what was not. Returns the results recorded per push, so
    /// each push's counters move once per batch, not once per target (a batch holds few pushes:
    /// they are found by comparing ids, not by hashing one per target).
    private static func recordResults(_ results: [TargetCompletion], db: SQLiteDatabase, report: inout CompletionReport,
                                      finished: inout [Int64]) throws -> [(pushID: PushID, sent: Int, failed: Int)] {
        var counts: [(pushID: PushID, sent: Int, failed: Int)] = []
        try db.withStatement(QueueStatements.completeTarget) { update in
            for (position, result) in results.enumerated() {
                guard let row = Int64(result.claim.receipt) else {
                    report.ignoredPositions.append(position)
                    continue
                }
                let o = result.outcome
                update.stage(1, o.status.rawValue)
                try update.bind(2, o.httpStatus)
                update.stage(3, o.reason)
                update.stage(4, o.providerID)
                try update.bind(5, Int64(o.tokenInvalid ? 1 : 0))
                try update.bind(6, o.attempts)
                try update.bind(7, o.finishedAt.timeIntervalSince1970)
                try update.bind(8, row)
                guard try update.runStaged() == 1 else {
                    report.duplicates += 1
                    report.ignoredPositions.append(position)
                    continue
                }
                report.recorded += 1
                finished.append(row)
                let pushID = result.claim.pushID
                let k = counts.lastIndex { $0.pushID == pushID } ?? {
                    counts.append((pushID, 0, 0))
                    return counts.count - 1
                }()
                if o.status == .sent { counts[k].sent += 1 } else { counts[k].failed += 1 }
                if o.tokenInvalid {
                    try db.run(QueueStatements.insertInvalidToken, [
                        .text(result.claim.app), .text(result.claim.target.kind.rawValue), .text(result.claim.target.value),
                        .text(o.reason ?? "invalid"), .text(pushID.rawValue), .real(o.finishedAt.timeIntervalSince1970),
                    ])
                }
            }
        }
        return counts
    }

    public func reschedule(_ retries: [TargetRetry]) async throws(PushQueueError) {
        guard !retries.isEmpty else { return }
        try await write(syncs: false) { batch throws(PushQueueError) in
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
            guard let row = try reader.query(QueueStatements.pushByID, [.text(push.rawValue)]).first else { return nil }
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
                DeliveryRecord(pushID: PushID(row.string(0) ?? ""), index: row.int(1) ?? 0,
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
                             reason: row.string(2) ?? "", pushID: PushID(row.string(3) ?? ""),
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
    /// `syncs`: its commit must reach the disk before the caller is answered.
    fileprivate struct PendingWrite: Sendable {
        let syncs: Bool
        let apply: @Sendable (inout Batch) -> @Sendable (PushQueueError?) -> Void
        let finish: @Sendable (PushQueueError) -> Void
    }

    /// Runs `body` in the next group commit and returns its value once that commit is durable
    /// (`syncs`: on disk, with `fsyncEveryCommit`; otherwise safe from a crash of the process).
    private func write<T: Sendable>(syncs: Bool = true, _ body: @escaping @Sendable (inout Batch) throws(PushQueueError) -> T) async throws(PushQueueError) -> T {
        let result: Result<T, PushQueueError> = await withCheckedContinuation { continuation in
            let pending = PendingWrite(
                syncs: syncs,
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

    /// The checkpoint the checkpoint thread handed to the writer (the WAL reached
    /// `walBackstopPages`), run before the writer's next transaction. No checkpoint runs beside
    /// this one and no frame is added meanwhile: it copies what is left (the checkpoint thread did
    /// the bulk), and the next transaction starts the WAL over unless a read still holds old frames.
    private func checkpointOnWriterIfHandedOver() {
        guard state.withLock({ $0.writerCheckpoints }) else { return }
        _ = try? writer.query("PRAGMA wal_checkpoint(PASSIVE)")
        state.withLock { s in
            s.writerCheckpoints = false
            s.checkpointRunning = false
            s.commitsSinceCheckpoint = 0
        }
    }

    /// Commits everything pending, batch after batch, until nothing is left.
    private func drain() {
        while true {
            let (writes, unfinished, nextTargetID, writerSyncs): ([PendingWrite], Int, Int64, Bool) = state.withLock { s in
                let writes = s.pending
                s.pending = []
                if writes.isEmpty { s.draining = false }
                return (writes, s.schedule.waiting + s.schedule.claimedCount, s.nextTargetID, s.writerSyncs)
            }
            if writes.isEmpty { return }
            let syncs = configuration.fsyncEveryCommit && writes.contains { $0.syncs }
            var batch = Batch(db: writer, unfinished: unfinished, nextTargetID: nextTargetID)
            var answers: [@Sendable (PushQueueError?) -> Void] = []
            answers.reserveCapacity(writes.count)
            do {
                if syncs != writerSyncs {
                    try writer.execute(Self.synchronous(syncs))
                    state.withLock { $0.writerSyncs = syncs }
                }
                checkpointOnWriterIfHandedOver()
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
            let (checkpoint, syncLater): (Bool, Bool) = state.withLock { s in
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
                var syncLater = false
                if syncs {
                    s.syncedCommits += 1
                    s.unsyncedCommits = 0
                } else if configuration.fsyncEveryCommit {
                    s.unsyncedCommits += 1
                    syncLater = !s.resultSyncScheduled
                    s.resultSyncScheduled = true
                }
                s.commitsSinceCheckpoint += 1
                guard s.commitsSinceCheckpoint >= Self.commitsPerCheckpoint, !s.checkpointRunning, !s.closed else { return (false, syncLater) }
                s.commitsSinceCheckpoint = 0
                s.checkpointRunning = true
                return (true, syncLater)
            }
            for answer in answers { answer(nil) }
            if checkpoint { checkpointQueue.async { self.checkpoint() } }
            if syncLater {
                checkpointQueue.asyncAfter(deadline: .now() + configuration.resultSyncDelay.seconds) { self.syncResults() }
            }
        }
    }

    /// Copies what the WAL holds into the database file without waiting for the writer or the
    /// readers (PASSIVE: frames still in use stay for the next one). On its own connection and
    /// thread; a failure leaves the WAL to the next checkpoint (or the close).
    /// Its answer names the WAL's length (frames): once that reaches `walBackstopPages`, the
    /// next checkpoint is the writer's (`writerCheckpoints`), as a checkpoint beside a writer
    /// that keeps committing may never copy the WAL to its end, and until one does the WAL
    /// never starts over. The writer's automatic checkpoint at the same length is the last
    /// resort, but it gives up whenever this thread's checkpoint runs.
    private func checkpoint() {
        var frames = 0
        if !state.withLock({ $0.closed }) {
            frames = (try? checkpointer.query("PRAGMA wal_checkpoint(PASSIVE)").first?.int(1)) ?? 0
        }
        state.withLock { s in
            if frames >= configuration.walBackstopPages, !s.closed { s.writerCheckpoints = true } else { s.checkpointRunning = false }
        }
    }

    /// Syncs the WAL if result commits wrote to it since it was last synced (by a commit that
    /// queued pushes, or here). On the checkpoint thread; the writer goes on meanwhile, and a
    /// result commit after the count is taken schedules the next sync. A checkpoint syncs the
    /// WAL too, but not when a reader holds back every new frame, so this one is ours.
    private func syncResults() {
        let unsynced = state.withLock { s in
            s.resultSyncScheduled = false
            defer { s.unsyncedCommits = 0 }
            return s.closed ? 0 : s.unsyncedCommits
        }
        guard unsynced > 0 else { return }
        let descriptor = open(path + "-wal", O_RDONLY)
        guard descriptor >= 0 else { return }
        defer { _ = Glibc.close(descriptor) }
        if fsync(descriptor) == 0 { state.withLock { $0.resultSyncs += 1 } }
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
            // A run of consecutive ids: one range read, its columns read in place.
            var end = start + 1
            while end < ids.count, ids[end] == ids[end - 1] + 1 { end += 1 }
            try Self.sql {
                try reader.withStatement(QueueStatements.claimedRows) { select in
                    try select.bind(1, ids[start])
                    try select.bind(2, ids[end - 1])
                    try select.forEachRow { row in
                        let pushRow = row.int64(1)
                        if pushes[pushRow] == nil {
                            guard let push = try readPush(row: pushRow) else { return }
                            pushes[pushRow] = push
                        }
                        let push = pushes[pushRow]!
                        claimed.append(ClaimedTarget(
                            pushID: push.id, index: Int(row.int64(2)), app: push.app,
                            target: Self.target(kind: row.string(3), value: row.string(4), environment: row.string(5)),
                            content: push.content, attempts: Int(row.int64(6)), receipt: String(row.int64(0))))
                    }
                }
            }
            start = end
        }
        return claimed
    }

    private func readPush(row: Int64) throws -> (id: PushID, app: String, content: [UInt8])? {
        guard let r = try reader.query(QueueStatements.pushContent, [.integer(row)]).first else { return nil }
        return (PushID(r.string(0) ?? ""), r.string(1) ?? "", r.blob(2) ?? [])
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

import Foundation
import PushCore
import PushStore
import Synchronization

/// The embedded queue: one SQLite file (WAL, `synchronous=FULL`) in the relay's data
/// directory, owned by one relay process.
///
/// Every write (enqueue, claim, complete, reschedule) goes through one writer that commits all
/// writes waiting at that moment in one transaction — group commit: under load one fsync
/// acknowledges many requests, and a caller returns only after the transaction holding its
/// write committed. A transaction of claims only commits without its own fsync: a claim lost
/// in a crash changes nothing (the restart makes every claimed target ready again), and the
/// next durable commit's fsync covers the WAL frames before it. Reads (status, deliveries) use
/// a second connection, which WAL lets run beside the writer.
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
    private let state: Mutex<WriterState>
    private let statements = QueueStatements.self

    /// What the writer shares with callers, under `state`.
    private struct WriterState {
        var pending: [PendingWrite] = []
        var draining = false
        var closed = false
        var depth: QueueDepth
        var commits = 0
        var writesCommitted = 0
        /// The writer's `synchronous` mode: FULL (fsync every commit) or NORMAL.
        var synchronousFull: Bool
    }

    /// Opens (creating if needed) the queue at `path`.
    public init(path: String, configuration: Configuration = Configuration(), time: any TimeSource = SystemTimeSource()) throws(PushQueueError) {
        self.path = path
        self.configuration = configuration
        self.time = time
        do {
            writer = try SQLiteDatabase(path: path)
            try writer.execute(configuration.fsyncEveryCommit ? "PRAGMA synchronous=FULL" : "PRAGMA synchronous=NORMAL")
            try writer.execute(QueueStatements.schema)
            reader = try SQLiteDatabase(path: path)
            var depth = QueueDepth(waiting: 0, claimed: 0, finished: 0)
            for row in try writer.query(QueueStatements.countByState) {
                let count = row.int(1) ?? 0
                switch row.int(0) {
                case TargetRowState.waiting.rawValue: depth.waiting = count
                case TargetRowState.claimed.rawValue: depth.claimed = count
                default: depth.finished += count
                }
            }
            state = Mutex(WriterState(depth: depth, synchronousFull: configuration.fsyncEveryCommit))
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
            let unfinished = batch.depth.unfinished
            guard unfinished + submission.targets.count <= capacity else {
                throw .full(unfinished: unfinished, incoming: submission.targets.count, capacity: capacity)
            }
            let accepted = submission.acceptedAt.timeIntervalSince1970
            try batch.sql {
                try db.run(QueueStatements.insertPush, [
                    .text(submission.id), .text(submission.app), .blob(submission.content), .int(submission.targets.count),
                    .real(accepted), .text(submission.idempotencyKey), .text(submission.requestFingerprint),
                ])
                let pushRow = db.lastInsertRowID
                for (index, target) in submission.targets.enumerated() {
                    try db.run(QueueStatements.insertTarget, [
                        .integer(pushRow), .int(index), .text(submission.app), .text(target.kind.rawValue), .text(target.value),
                        .text(target.environment?.rawValue), .real(accepted),
                    ])
                }
            }
            batch.depth.waiting += submission.targets.count
            return EnqueueReceipt(pushID: submission.id, targetCount: submission.targets.count,
                                  acceptedAt: submission.acceptedAt, isReplay: false)
        }
    }

    public func claim(consumer: String, limit: Int, lease: Duration) async throws(PushQueueError) -> [ClaimedTarget] {
        guard limit > 0 else { return [] }
        let now = time.now.timeIntervalSince1970
        let leaseUntil = now + Double(lease.components.seconds) + Double(lease.components.attoseconds) / 1e18
        // Not durable on its own (see the type's comment): nothing is lost with it.
        let rows: [SQLiteRow] = try await write(durable: false) { batch throws(PushQueueError) in
            let db = batch.db
            // Targets whose consumer's lease ran out are ready again (contract rule 4).
            let expired = try batch.sql { try db.run(QueueStatements.expireLeases, [.real(now), .real(now)]) }
            batch.depth.claimed -= expired
            batch.depth.waiting += expired
            let rows = try batch.sql { try db.query(QueueStatements.claim, [.real(leaseUntil), .text(consumer), .real(now), .int(limit)]) }
            batch.depth.waiting -= rows.count
            batch.depth.claimed += rows.count
            return rows
        }
        var pushes: [Int64: (id: PushID, app: String, content: [UInt8])] = [:]
        var claimed: [ClaimedTarget] = []
        claimed.reserveCapacity(rows.count)
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
        // Sorted so a push's targets stay together and in order for the worker.
        return claimed.sorted { ($0.pushID, $0.index) < ($1.pushID, $1.index) }
    }

    @discardableResult
    public func complete(_ results: [TargetCompletion]) async throws(PushQueueError) -> CompletionReport {
        guard !results.isEmpty else { return CompletionReport() }
        return try await write { batch throws(PushQueueError) in
            let db = batch.db
            var report = CompletionReport()
            var wasClaimed = 0
            // Each push's counters move once per batch, not once per target.
            var counts: [PushID: (sent: Int, failed: Int)] = [:]
            try batch.sql {
                for (position, result) in results.enumerated() {
                    guard let row = Int64(result.claim.receipt) else {
                        report.ignoredPositions.append(position)
                        continue
                    }
                    let o = result.outcome
                    let completed = try db.query(QueueStatements.completeTarget, [
                        .text(o.status.rawValue), .int(o.httpStatus), .text(o.reason), .text(o.providerID),
                        .integer(o.tokenInvalid ? 1 : 0), .int(o.attempts), .real(o.finishedAt.timeIntervalSince1970), .integer(row),
                    ])
                    guard let wasClaimedRow = completed.first else {
                        report.duplicates += 1
                        report.ignoredPositions.append(position)
                        continue
                    }
                    report.recorded += 1
                    if wasClaimedRow.int(0) == 1 { wasClaimed += 1 }
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
            batch.depth.claimed -= wasClaimed
            batch.depth.waiting -= report.recorded - wasClaimed
            batch.depth.finished += report.recorded
            return report
        }
    }

    public func reschedule(_ retries: [TargetRetry]) async throws(PushQueueError) {
        guard !retries.isEmpty else { return }
        try await write { batch throws(PushQueueError) in
            let db = batch.db
            let changed = try batch.sql {
                var changed = 0
                for retry in retries {
                    guard let row = Int64(retry.claim.receipt) else { continue }
                    changed += try db.run(QueueStatements.rescheduleTarget, [
                        .real(retry.notBefore.timeIntervalSince1970), .int(retry.attempts), .text(retry.lastError), .integer(row),
                    ])
                }
                return changed
            }
            batch.depth.claimed -= changed
            batch.depth.waiting += changed
        }
    }

    @discardableResult
    public func recoverAbandoned() async throws(PushQueueError) -> Int {
        let now = time.now.timeIntervalSince1970
        return try await write { batch throws(PushQueueError) in
            let db = batch.db
            let released = try batch.sql { try db.run(QueueStatements.releaseAllClaims, [.real(now)]) }
            batch.depth.claimed -= released
            batch.depth.waiting += released
            return released
        }
    }

    public func depth() async throws(PushQueueError) -> QueueDepth {
        try state.withLock { s throws(PushQueueError) in
            if s.closed { throw .closed }
            return s.depth
        }
    }

    public func status(of push: PushID, includeTargets: Bool) async throws(PushQueueError) -> PushStatus? {
        try readChecked()
        return try Self.sql {
            guard let row = try reader.query(QueueStatements.pushByID, [.text(push)]).first else { return nil }
            var status = PushStatus(pushID: push, app: row.string(1) ?? "", acceptedAt: Date(timeIntervalSince1970: row.double(2) ?? 0),
                                    targetCount: row.int(3) ?? 0, sent: row.int(4) ?? 0, failed: row.int(5) ?? 0, targets: [])
            if includeTargets {
                let pushRow = Int64(row.int(0) ?? 0)
                status.targets = try reader.query(QueueStatements.targetsOfPush, [.integer(pushRow)]).map(Self.targetState)
            }
            return status
        }
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
        try readChecked()
        return try Self.sql {
            let row = try reader.query(QueueStatements.nextReady).first
            let times = [row?.double(0), row?.double(1)].compactMap { $0 }
            return times.min().map { Date(timeIntervalSince1970: $0) }
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
            writerQueue.async {
                self.writer.close()
                self.reader.close()
                c.resume()
            }
        }
    }

    // MARK: - Group commit

    /// What one batch's writes share: the connection, the depth as it will be after the
    /// commit, and the first storage error (after which the batch rolls back).
    fileprivate struct Batch {
        let db: SQLiteDatabase
        var depth: QueueDepth
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
        /// The commit must reach the disk before the caller is answered (`fsyncEveryCommit`).
        let durable: Bool
        let apply: @Sendable (inout Batch) -> @Sendable (PushQueueError?) -> Void
        let finish: @Sendable (PushQueueError) -> Void
    }

    /// Runs `body` in the next group commit and returns its value once that commit is durable.
    private func write<T: Sendable>(durable: Bool = true, _ body: @escaping @Sendable (inout Batch) throws(PushQueueError) -> T) async throws(PushQueueError) -> T {
        let result: Result<T, PushQueueError> = await withCheckedContinuation { continuation in
            let pending = PendingWrite(
                durable: durable,
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
            let (writes, depth): ([PendingWrite], QueueDepth) = state.withLock { s in
                let writes = s.pending
                s.pending = []
                if writes.isEmpty { s.draining = false }
                return (writes, s.depth)
            }
            if writes.isEmpty { return }
            var batch = Batch(db: writer, depth: depth, storageError: nil)
            var answers: [@Sendable (PushQueueError?) -> Void] = []
            answers.reserveCapacity(writes.count)
            do {
                try setSynchronous(full: configuration.fsyncEveryCommit && writes.contains(where: \.durable))
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
            state.withLock { s in
                s.depth = batch.depth
                s.commits += 1
                s.writesCommitted += writes.count
            }
            for answer in answers { answer(nil) }
        }
    }

    /// Sets `PRAGMA synchronous` for the next commit (writer thread only). In WAL mode NORMAL
    /// commits without an fsync and stays consistent after a crash; FULL fsyncs the WAL,
    /// every earlier frame included.
    private func setSynchronous(full: Bool) throws {
        if state.withLock({ $0.synchronousFull }) == full { return }
        try writer.execute(full ? "PRAGMA synchronous=FULL" : "PRAGMA synchronous=NORMAL")
        state.withLock { $0.synchronousFull = full }
    }

    // MARK: - Reading rows

    private func readChecked() throws(PushQueueError) {
        if state.withLock({ $0.closed }) { throw .closed }
    }

    private static func sql<T>(_ body: () throws -> T) throws(PushQueueError) -> T {
        do { return try body() } catch { throw .storage("\(error)") }
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

    private static func targetState(_ row: SQLiteRow) -> TargetState {
        let rowState = TargetRowState(rawValue: row.int(4) ?? 0) ?? .waiting
        let outcome = rowState == .finished ? Self.outcome(row, from: 7) : nil
        let phase: TargetState.Phase
        switch rowState {
        case .waiting: phase = .waiting
        case .claimed: phase = .claimed
        case .finished: phase = outcome?.status == .sent ? .sent : .failed
        }
        return TargetState(index: row.int(0) ?? 0, target: target(kind: row.string(1), value: row.string(2), environment: row.string(3)),
                           phase: phase, attempts: row.int(5) ?? 0, lastError: row.string(6), outcome: outcome)
    }
}

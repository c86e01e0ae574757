import Foundation

/// The relay's durable queue: where a push and its targets live from the moment the API
/// acknowledges them until every target has exactly one final result.
///
/// Two implementations share this contract: `SQLitePushQueue` (embedded, one relay process)
/// and a Redis Streams queue (several relay nodes). The API enqueues, workers claim and
/// record results, the read side (results, deliveries, invalid tokens, depth) reads here too,
/// so any node can answer for any push.
///
/// The contract, which every implementation keeps and `PushQueueContractTests` checks:
/// 1. **Durable acknowledgement.** `enqueue` returns only once the push and all its targets
///    would survive a crash of this process (`kill -9`). Before it returns, nothing of the
///    submission is visible to `claim`; if it throws, nothing of it was queued.
/// 2. **Idempotency.** A submission whose `(app, idempotencyKey)` was seen before queues
///    nothing and returns the first push's receipt with `isReplay == true`; with a different
///    `requestFingerprint` it throws `.idempotencyConflict` instead.
/// 3. **Capacity.** When the not-yet-final targets plus the new ones would exceed the
///    configured capacity, `enqueue` throws `.full` and queues nothing.
/// 4. **Leases.** `claim` hands each ready target to one consumer for `lease`; a target whose
///    lease ran out (its consumer died) is ready again. So every target is handed out at
///    least once, and more than once only after a lease ran out or a crash.
/// 5. **Exactly one final result.** `complete` stores a target's first final result; later
///    ones for the same target are ignored and counted in `CompletionReport.duplicates`.
///    `reschedule` makes a target ready again at `notBefore` (a retryable failure) unless
///    it already has a final result.
/// 6. **Resume.** `recoverAbandoned()`, called once at start, makes every target claimed by a
///    previous incarnation of this node ready again. (The SQLite queue keeps its claims in
///    memory: a reopened file has none, every unfinished target is ready from the start.)
public protocol PushQueue: Sendable {
    /// Stores the push and its targets durably (rule 1–3).
    func enqueue(_ submission: PushSubmission) async throws(PushQueueError) -> EnqueueReceipt

    /// Up to `limit` ready targets, leased to `consumer` for `lease` (rule 4). Empty when
    /// nothing is ready; callers wait for `nextReadyDate` or new work before asking again.
    func claim(consumer: String, limit: Int, lease: Duration) async throws(PushQueueError) -> [ClaimedTarget]

    /// Records final results (rule 5).
    @discardableResult
    func complete(_ results: [TargetCompletion]) async throws(PushQueueError) -> CompletionReport

    /// Gives claimed targets back for another attempt at `notBefore` (rule 5); `attempts` and
    /// `lastError` are what the target's result shows meanwhile.
    func reschedule(_ retries: [TargetRetry]) async throws(PushQueueError)

    /// Extends the leases of targets this consumer still holds (claimed ahead, waiting for a
    /// send budget, or being sent) to `lease` from now, so a target that waits longer than a
    /// lease (a low `rate_per_minute`) is not handed to another consumer and sent twice. A
    /// claim whose lease already ran out and was handed out again is left to its new holder.
    /// `receipts` are the claims' `ClaimedTarget.receipt`s (several targets may share one).
    func renew(receipts: [String], lease: Duration) async throws(PushQueueError)

    /// Makes targets claimed before a crash ready again (rule 6); returns how many.
    @discardableResult
    func recoverAbandoned() async throws(PushQueueError) -> Int

    /// How many targets wait, are claimed, and are final.
    func depth() async throws(PushQueueError) -> QueueDepth

    /// The push's state; `includeTargets: false` gives the counts only (cheap for polling).
    func status(of push: PushID, includeTargets: Bool) async throws(PushQueueError) -> PushStatus?

    /// Final results for `app`, newest first: every target when `token` is nil, else that
    /// token's (or topic's) only; finished at or after `since` when given.
    func deliveries(app: String, token: String?, since: Date?, limit: Int) async throws(PushQueueError) -> [DeliveryRecord]

    /// Tokens APNs/FCM called dead (`Unregistered`, `BadDeviceToken`, `UNREGISTERED`…) for
    /// `app`, newest first, reported at or after `since` when given.
    func invalidTokens(app: String, since: Date?, limit: Int) async throws(PushQueueError) -> [InvalidToken]

    /// The earliest time a waiting target becomes ready (retries wait), or nil when none waits.
    func nextReadyDate() async throws(PushQueueError) -> Date?

    /// Claims of a multiple of this many targets fit the queue's unit of claim (the Redis
    /// queue's chunk): a claim of another size splits a unit. 1 for the SQLite queue.
    var claimGranularity: Int { get }

    /// Which of the queue's streams (0…) a claim's receipt belongs to: results are written in
    /// one `complete` call per stream, so the recorder gathers them per stream (a Redis Cluster's
    /// queue has one stream per master). 0 for a queue of one stream.
    func stream(ofReceipt receipt: String) -> Int

    /// Flushes and releases the store; further calls throw `.closed`.
    func close() async
    /// Where the queue's writes run, when they run on one thread: a caller that writes batch
    /// after batch runs there, and hands its writes over with no thread switch. Nil: anywhere.
    var writerExecutor: (any TaskExecutor)? { get }
}

extension PushQueue {
    public var writerExecutor: (any TaskExecutor)? { nil }
    public var claimGranularity: Int { 1 }
    public func stream(ofReceipt receipt: String) -> Int { 0 }
}

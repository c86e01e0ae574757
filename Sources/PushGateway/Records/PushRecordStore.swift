import Foundation
import PushCore
import PushHTTP
import PushStore

/// The gateway's record of every push, in SQLite (table `pushes`, documented in
/// docs/gateway.md; `pushlab report --gateway-db` reads it to count what was sent).
///
/// Handlers run on the server's event loop and must not wait for disk, so with SQLite `record`
/// only appends to a buffer that a writer thread commits in one transaction every 50 ms; in
/// memory (no path) it puts the record straight into a ring of the newest 10,000. Either way a
/// record is kept packed (`PackedPush`: one byte buffer, which the full ring overwrites in place).
public final class PushRecordStore: @unchecked Sendable {
    private let db: SQLiteDatabase?
    // `pending`, `memory`, `stopped` are protected by `condition`'s lock; `condition` wakes the
    // writer. Exclusivity unchecked: every access holds the lock, so no two overlap; the dynamic
    // check of `memory.insert(reusing:)`, which calls a closure while it modifies the ring, ran per push.
    @exclusivity(unchecked) private var pending: [PackedPush] = []
    @exclusivity(unchecked) private var memory = RecordRing<PackedPush>(capacity: PushRecordStore.memoryCapacity)
    private var stopped = false
    private let condition = NSCondition()
    /// Held by `flush` while it takes and commits a batch (not by `record`: the event loops never wait for SQLite).
    private let flushing = NSLock()
    private var writer: Thread?
    private let observer: (any PushRecordObserver)?

    static let schema = SentPushRecords.schema
    /// How many records the in-memory store keeps (the newest).
    static let memoryCapacity = 10_000

    /// `path == nil` keeps the newest records in memory only; `observer` sees each record as it
    /// is recorded, its header map and payload text built at once.
    public init(path: String?, observer: (any PushRecordObserver)? = nil) throws {
        self.observer = observer
        if let path {
            let db = try SQLiteDatabase(path: path)
            try db.execute(Self.schema)
            self.db = db
        } else {
            db = nil
        }
        // Only SQLite needs a writer; in memory, `record` files each push itself.
        guard db != nil else { return }
        let t = Thread { [weak self] in self?.writeLoop() }
        t.name = "pushlab.gateway.records"
        writer = t
        t.start()
    }

    public func record(_ r: PushRecord) {
        add(r, rawHeaders: nil, body: nil)
    }

    /// Records `r` with its request's headers and body, from which the redacted header map and
    /// the payload text are taken (packed at once, built as strings only when read).
    func record(_ r: PushRecord, rawHeaders: HTTPHeaders, body: [UInt8]) {
        add(r, rawHeaders: rawHeaders, body: body)
    }

    /// As `record(_:rawHeaders:body:)`, the message id and unique id given as inline text (the
    /// record's own are nil): packed from the text, made strings only for an observer or a reader.
    func record(_ r: PushRecord, rawHeaders: HTTPHeaders, body: [UInt8], messageID: CanonicalUUIDText, uniqueID: CanonicalUUIDText?) {
        add(r, rawHeaders: rawHeaders, body: body, ids: PackedPush.RecordIDs(messageID: messageID, uniqueID: uniqueID))
    }

    /// As `record(_:rawHeaders:body:)`, the FCM message name given as the UTF-8 bytes the route
    /// wrote into its answer (nil: none): packed from the bytes, a string only for an observer or a reader.
    func record(_ r: PushRecord, rawHeaders: HTTPHeaders, body: [UInt8], messageName: ArraySlice<UInt8>?) {
        add(r, rawHeaders: rawHeaders, body: body, ids: PackedPush.RecordIDs(messageName: messageName))
    }

    /// In memory the record is packed straight into the ring's oldest slot once the ring is
    /// full, reusing that slot's buffer: nothing is allocated or freed per push (a ring of
    /// `RecordedPush` values freed the pushed-out one's strings and arrays on the event loop,
    /// benchmarks/results/gateway.md). With SQLite it is packed into a new buffer for the writer.
    private func add(_ r: PushRecord, rawHeaders: HTTPHeaders?, body: [UInt8]?, ids: PackedPush.RecordIDs = PackedPush.RecordIDs()) {
        if let observer {
            var seen = r
            if let id = ids.messageIDString { seen.messageID = id }
            if let id = ids.uniqueID { seen.uniqueID = id.string }
            observer.recorded(RecordedPush(record: seen, rawHeaders: rawHeaders, body: body))
        }
        guard db == nil else {
            var packed = PackedPush()
            packed.pack(r, rawHeaders: rawHeaders, body: body, ids: ids)
            condition.lock()
            pending.append(packed)
            condition.unlock()
            return
        }
        condition.lock()
        memory.insert(reusing: { $0.pack(r, rawHeaders: rawHeaders, body: body, ids: ids) }, new: PackedPush())
        condition.unlock()
    }

    /// The newest `limit` records, newest last (none for `limit` <= 0). Waits for pending writes first.
    public func recent(limit: Int = 100) throws -> [PushRecord] {
        // SQLite reads a negative LIMIT as no limit at all.
        guard limit > 0 else { return [] }
        flush()
        guard let db else {
            // In memory the header map and payload text are built only when someone reads them.
            return condition.withLock { memory.newest(limit) }.map(\.record)
        }
        let rows = try db.query("""
            SELECT received_at, service, token, device, topic, push_type, message_id, status, reason, delivery_id, headers, payload
            FROM pushes ORDER BY id DESC LIMIT ?
            """, [.integer(Int64(limit))])
        return rows.reversed().map { row in
            let headers = (try? JSONDecoder().decode([String: String].self, from: Data((row.string(10) ?? "{}").utf8))) ?? [:]
            return PushRecord(receivedAt: Date(timeIntervalSince1970: row.double(0) ?? 0),
                              service: PushRecord.Service(rawValue: row.string(1) ?? "apns") ?? .apns,
                              token: row.string(2), device: row.string(3), topic: row.string(4), pushType: row.string(5),
                              messageID: row.string(6), status: row.int(7) ?? 0, reason: row.string(8),
                              deliveryID: row.string(9), headers: headers, payload: row.string(11) ?? "")
        }
    }

    /// Commits everything recorded so far. One flush at a time: a caller (`recent`, `close`) that
    /// finds the writer thread committing a batch it already took waits for that commit, so
    /// everything recorded before the call is in the file when it returns.
    public func flush() {
        flushing.lock()
        defer { flushing.unlock() }
        let batch: [PackedPush] = condition.withLock {
            let b = pending
            pending.removeAll(keepingCapacity: true)
            return b
        }
        write(batch)
    }

    /// Forgets every record of an in-memory store (`Gateway.resetStores`); a SQLite store's
    /// rows are the user's and stay, so it must not be asked.
    func removeAllInMemory() {
        precondition(db == nil, "removeAllInMemory() on a SQLite record store")
        condition.withLock { memory = RecordRing(capacity: memory.capacity) }
    }

    /// Commits what is pending and stops the writer thread.
    public func close() {
        condition.withLock { stopped = true }
        flush()
        while writer?.isFinished == false { usleep(1_000) }
    }

    private func writeLoop() {
        while true {
            let done = condition.withLock { stopped }
            if done { return }
            flush()
            usleep(50_000)
        }
    }

    private func write(_ pendingBatch: [PackedPush]) {
        guard !pendingBatch.isEmpty else { return }
        guard let db else { return }  // memory: `add` filed every record already
        let batch = pendingBatch.map(\.record)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        do {
            try db.transaction {
                for r in batch {
                    let headers = String(decoding: (try? encoder.encode(r.headers)) ?? Data("{}".utf8), as: UTF8.self)
                    try db.run("""
                        INSERT INTO pushes (received_at, service, token, device, topic, push_type, message_id, status, reason,
                                            delivery_id, headers, payload) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)
                        """, [.real(r.receivedAt.timeIntervalSince1970), .text(r.service.rawValue), .text(r.token), .text(r.device),
                              .text(r.topic), .text(r.pushType), .text(r.messageID), .integer(Int64(r.status)), .text(r.reason),
                              .text(r.deliveryID), .text(headers), .text(r.payload)])
                }
            }
        } catch {
            // `write(contentsOf:)` throws where `write(_:)` traps: a closed stderr must not crash the gateway.
            try? FileHandle.standardError.write(contentsOf: Data("pushlab gateway: could not record \(batch.count) pushes: \(error)\n".utf8))
        }
    }
}

/// The newest records of an in-memory store, in a ring: keeping the last 10,000 of 40,000 a
/// second costs one overwrite per record, not a shift of the whole array per batch.
struct RecordRing<Element> {
    private var ring: [Element] = []
    /// Index of the oldest record once the ring is full.
    private var oldest = 0
    let capacity: Int

    init(capacity: Int) { self.capacity = capacity }

    /// Takes `record` in; the record it pushes out of a full ring is left in `record` (swapped,
    /// not copied: a record holds a dozen strings and arrays, each copy a retain and a release).
    mutating func insert(_ record: inout Element) {
        if ring.count < capacity {
            ring.append(record)
        } else {
            swap(&ring[oldest], &record)
            oldest = (oldest + 1) % capacity
        }
    }

    /// Writes the next record in place: into `new` while the ring fills, then over the oldest
    /// record (`fill` gets the pushed-out element and may reuse its storage).
    mutating func insert(reusing fill: (inout Element) -> Void, new: @autoclosure () -> Element) {
        if ring.count < capacity {
            var element = new()
            fill(&element)
            ring.append(element)
        } else {
            fill(&ring[oldest])
            oldest = (oldest + 1) % capacity
        }
    }

    /// The newest `limit` records, oldest first (none for `limit` <= 0).
    func newest(_ limit: Int) -> [Element] {
        guard limit > 0 else { return [] }
        return Array((ring[oldest...] + ring[..<oldest]).suffix(limit))
    }
}

/// The ring of `RecordedPush` values (what `NewestRecordsTests` drives).
typealias NewestRecords = RecordRing<RecordedPush>

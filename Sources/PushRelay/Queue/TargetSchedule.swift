/// The SQLite queue's view, in memory, of its unfinished targets (by row id): which are ready
/// now, which wait for a retry time, and which are claimed and until when.
///
/// Only the queue's one process uses its file, so claims need not be written: a claim lost in a
/// crash changes nothing, because a restart makes every unfinished target ready again. The file
/// keeps what must survive (the targets, their retry times and attempts, final results); this
/// is rebuilt from it on open. Not thread-safe: `SQLitePushQueue` holds it under its lock.
struct TargetSchedule {
    /// Ready now, oldest first (`ready[readyHead...]`); entries before `readyHead` were taken.
    private var ready: [Int64] = []
    private var readyHead = 0
    /// Waiting for a time (a retry's `notBefore`): a min-heap by time, then id.
    private var delayed: [Entry] = []
    /// Claimed, with the end of the lease.
    private var claimed: [Int64: Double] = [:]
    /// The earliest lease end in `claimed` (∞ when none): expiry is looked for only once due.
    private var earliestLeaseEnd = Double.infinity
    /// Finished while ready or delayed (a late answer after a lease ran out): skipped, not handed out.
    private var finishedUnclaimed: Set<Int64> = []
    /// Not final and not claimed.
    private(set) var waiting = 0
    var claimedCount: Int { claimed.count }

    private struct Entry {
        let time: Double
        let id: Int64
        func before(_ other: Entry) -> Bool { time < other.time || (time == other.time && id < other.id) }
    }

    /// A target that is not final, ready at `time` (the past: ready now).
    mutating func add(_ id: Int64, readyAt time: Double, now: Double) {
        waiting += 1
        enqueue(id, at: time, now: now)
    }

    /// Up to `limit` targets ready at `now` (due retries first, then the oldest ready), claimed
    /// until `leaseEnd`. Claims whose lease ended before `now` are ready again first.
    mutating func claim(limit: Int, now: Double, leaseEnd: Double) -> [Int64] {
        if earliestLeaseEnd < now { expireLeases(now: now) }
        var taken: [Int64] = []
        taken.reserveCapacity(min(limit, waiting))
        while taken.count < limit, let id = popReady(now: now) {
            claimed[id] = leaseEnd
            taken.append(id)
        }
        waiting -= taken.count
        if !taken.isEmpty { earliestLeaseEnd = min(earliestLeaseEnd, leaseEnd) }
        return taken
    }

    /// `id` got its final result: claimed or waiting, it is no longer either.
    mutating func finish(_ id: Int64) {
        if claimed.removeValue(forKey: id) != nil { return }
        waiting -= 1
        finishedUnclaimed.insert(id)
    }

    /// Gives claimed `id` back, ready at `time`. When it is no longer claimed (its lease ran out
    /// and it is ready already) nothing changes.
    mutating func release(_ id: Int64, readyAt time: Double, now: Double) {
        guard claimed.removeValue(forKey: id) != nil else { return }
        waiting += 1
        enqueue(id, at: time, now: now)
    }

    /// Every claim ready again (rule 6, within one process); returns how many.
    mutating func releaseAll(now: Double) -> Int {
        let ids = claimed.keys.sorted()
        for id in ids { release(id, readyAt: now, now: now) }
        earliestLeaseEnd = .infinity
        return ids.count
    }

    /// Extends the claim of `id` to `leaseEnd` when it is still claimed (a claim whose lease ran
    /// out is ready again, or someone else's: left alone). Returns whether it was.
    mutating func renew(_ id: Int64, leaseEnd: Double) -> Bool {
        guard let end = claimed[id] else { return false }
        // `earliestLeaseEnd` stays a lower bound: expiry is looked for a little early, at worst.
        if leaseEnd > end { claimed[id] = leaseEnd }
        return true
    }

    /// Whether `id` is claimed.
    func isClaimed(_ id: Int64) -> Bool { claimed[id] != nil }

    /// When the next target becomes ready: now if one is, else the earliest retry time or lease
    /// end; nil when nothing is unfinished.
    mutating func nextReadyTime(now: Double) -> Double? {
        while readyHead < ready.count, finishedUnclaimed.remove(ready[readyHead]) != nil { readyHead += 1 }
        if readyHead < ready.count { return now }
        while let top = delayed.first, finishedUnclaimed.contains(top.id) {
            finishedUnclaimed.remove(top.id)
            popDelayed()
        }
        let times = [delayed.first?.time, claimed.isEmpty ? nil : claimed.values.min()].compactMap { $0 }
        return times.min()
    }

    // MARK: - Internals

    private mutating func enqueue(_ id: Int64, at time: Double, now: Double) {
        if time <= now {
            if readyHead > 4096, readyHead * 2 > ready.count {
                ready.removeFirst(readyHead)
                readyHead = 0
            }
            ready.append(id)
        } else {
            pushDelayed(Entry(time: time, id: id))
        }
    }

    private mutating func expireLeases(now: Double) {
        var next = Double.infinity
        var expired: [Int64] = []
        for (id, end) in claimed {
            if end < now { expired.append(id) } else { next = min(next, end) }
        }
        earliestLeaseEnd = next
        for id in expired.sorted() { release(id, readyAt: now, now: now) }
    }

    /// The next target ready at `now`, skipping those finished meanwhile.
    private mutating func popReady(now: Double) -> Int64? {
        while let top = delayed.first, top.time <= now {
            popDelayed()
            if finishedUnclaimed.remove(top.id) == nil { return top.id }
        }
        while readyHead < ready.count {
            let id = ready[readyHead]
            readyHead += 1
            if finishedUnclaimed.remove(id) == nil { return id }
        }
        if readyHead == ready.count, readyHead > 0 {
            ready.removeAll(keepingCapacity: true)
            readyHead = 0
        }
        return nil
    }

    private mutating func pushDelayed(_ entry: Entry) {
        delayed.append(entry)
        var child = delayed.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard delayed[child].before(delayed[parent]) else { break }
            delayed.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func popDelayed() {
        let last = delayed.removeLast()
        guard !delayed.isEmpty else { return }
        delayed[0] = last
        var parent = 0
        while true {
            let left = 2 * parent + 1, right = left + 1
            var first = parent
            if left < delayed.count, delayed[left].before(delayed[first]) { first = left }
            if right < delayed.count, delayed[right].before(delayed[first]) { first = right }
            if first == parent { return }
            delayed.swapAt(parent, first)
            parent = first
        }
    }
}

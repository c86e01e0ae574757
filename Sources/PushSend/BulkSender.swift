import Foundation

/// Sends one payload to many tokens: the one bulk engine both the APNs and the FCM client use.
///
/// Memory stays flat whatever the count: tokens are read as they are needed, at most
/// `concurrency` pushes are in flight, and each report goes to the sinks (JSONL, prune file,
/// history batches, progress) as soon as it arrives and is then dropped.
public struct BulkSender: Sendable {
    /// Pushes in flight at once. Default 200: below APNs' 500 streams per connection, and as
    /// fast as 500 against a local server while holding fewer transfers (memory) open.
    public var concurrency: Int
    /// Where the pushes run: push `i` on `executors[i % executors.count]` (each HTTP client's
    /// loop, `HTTPClient.executor`, so a push costs its client no thread hand-off). With one
    /// executor the bookkeeping (reading tokens, the sinks) runs on it too; with several, on
    /// the global pool. Empty (the default): everything on the global pool.
    public var executors: [any TaskExecutor]

    public init(concurrency: Int = 200, executors: [any TaskExecutor] = []) {
        self.concurrency = max(1, concurrency)
        self.executors = executors
    }

    /// Sends to every token of `tokens`. `send` gets the token and its 0-based index and must
    /// not throw: every outcome is a report.
    public func run(tokens: TokenLineReader, sinks: [any BulkReportSink], progress: BulkProgress? = nil,
                    send: @escaping @Sendable (_ token: String, _ index: UInt64) async -> DeliveryReport) async throws -> BulkSummary {
        if executors.count == 1 {
            return try await withTaskExecutorPreference(executors[0]) {
                try await sendAll(tokens: tokens, sinks: sinks, progress: progress, send: send)
            }
        }
        return try await sendAll(tokens: tokens, sinks: sinks, progress: progress, send: send)
    }

    private func sendAll(tokens: TokenLineReader, sinks: [any BulkReportSink], progress: BulkProgress?,
                         send: @escaping @Sendable (_ token: String, _ index: UInt64) async -> DeliveryReport) async throws -> BulkSummary {
        let clock = ContinuousClock()
        let started = clock.now
        var summary = BulkSummary()
        var sinkError: (any Error)?
        var read: UInt64 = 0  // tokens taken from the input so far (sent or in flight)

        func handle(_ report: DeliveryReport) {
            summary.add(report)
            progress?.update(summary, fraction: BulkProgress.fractionDone(consumed: tokens.fractionConsumed,
                                                                          read: read, done: summary.total))
            guard sinkError == nil else { return }
            do {
                for sink in sinks { try sink.record(report) }
            } catch {
                sinkError = error
            }
        }

        var readError: (any Error)?
        await withTaskGroup(of: DeliveryReport.self) { group in
            var inFlight = 0
            var index: UInt64 = 0
            while sinkError == nil {
                let token: String?
                do { token = try tokens.next() } catch { readError = error; break }
                guard let token else { break }
                if inFlight >= concurrency, let report = await group.next() {
                    inFlight -= 1
                    handle(report)
                }
                let i = index
                let executor = executors.isEmpty ? nil : executors[Int(i % UInt64(executors.count))]
                group.addTask(executorPreference: executor) { await send(token, i) }
                inFlight += 1
                index += 1
                read = index
            }
            // Everything already sent is awaited and reported, even after an input error, so
            // no push that went out is missing from the results.
            for await report in group { handle(report) }
        }
        summary.elapsed = clock.now - started
        var finishError: (any Error)?
        for sink in sinks {
            do { try sink.finish() } catch { finishError = finishError ?? error }
        }
        progress?.finish(summary)
        if let readError { throw readError }
        if let sinkError { throw sinkError }
        if let finishError { throw finishError }
        return summary
    }
}

/// Counts of a bulk send.
public struct BulkSummary: Sendable, Hashable, Codable {
    public var total = 0
    public var accepted = 0
    public var rejected = 0
    public var failed = 0
    public var invalid = 0
    public var pruned = 0
    /// Attempts beyond the first, summed (how much retrying happened).
    public var retries = 0
    /// Count per reason (APNs reason, FCM errorCode, failure name).
    public var reasons: [String: Int] = [:]
    public var elapsed: Duration = .zero

    public init() {}

    public mutating func add(_ r: DeliveryReport) {
        total += 1
        switch r.outcome {
        case .accepted: accepted += 1
        case .rejected: rejected += 1
        case .failed: failed += 1
        case .invalid: invalid += 1
        }
        if r.prune { pruned += 1 }
        retries += max(0, r.attempts - 1)
        // A hostile server could invent endless reasons; keep the table bounded.
        if let reason = r.reason, reasons[reason] != nil || reasons.count < 64 { reasons[reason, default: 0] += 1 }
    }

    /// Pushes that did not go through, for whatever reason.
    public var notAccepted: Int { total - accepted }

    /// Pushes answered per second.
    public var rate: Double {
        let s = elapsed.inSeconds
        return s > 0 ? Double(total) / s : 0
    }

    enum CodingKeys: String, CodingKey { case total, accepted, rejected, failed, invalid, pruned, retries, reasons, elapsedSeconds, perSecond }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(total, forKey: .total)
        try c.encode(accepted, forKey: .accepted)
        try c.encode(rejected, forKey: .rejected)
        try c.encode(failed, forKey: .failed)
        try c.encode(invalid, forKey: .invalid)
        try c.encode(pruned, forKey: .pruned)
        try c.encode(retries, forKey: .retries)
        try c.encode(reasons, forKey: .reasons)
        try c.encode((elapsed.inSeconds * 1000).rounded() / 1000, forKey: .elapsedSeconds)
        try c.encode(rate.rounded(), forKey: .perSecond)
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        total = try c.decode(Int.self, forKey: .total)
        accepted = try c.decode(Int.self, forKey: .accepted)
        rejected = try c.decode(Int.self, forKey: .rejected)
        failed = try c.decode(Int.self, forKey: .failed)
        invalid = try c.decode(Int.self, forKey: .invalid)
        pruned = try c.decode(Int.self, forKey: .pruned)
        retries = try c.decode(Int.self, forKey: .retries)
        reasons = try c.decode([String: Int].self, forKey: .reasons)
        elapsed = .milliseconds(Int64(try c.decode(Double.self, forKey: .elapsedSeconds) * 1000))
    }
}

/// The live progress line of a bulk send on a terminal: sent, ok, failed, rate, ETA.
/// Redrawn at most every `interval`, written through `write` (stderr in the CLI).
public final class BulkProgress {
    private let write: (String) -> Void
    private let interval: Duration
    private let clock = ContinuousClock()
    private let started: ContinuousClock.Instant
    private var lastDraw: ContinuousClock.Instant

    public init(interval: Duration = .milliseconds(200), write: @escaping (String) -> Void) {
        self.write = write
        self.interval = interval
        started = clock.now
        lastDraw = started
    }

    func update(_ summary: BulkSummary, fraction: Double?) {
        let now = clock.now
        guard now - lastDraw >= interval else { return }
        lastDraw = now
        write("\r\u{1B}[2K" + Self.line(summary, elapsed: now - started, fraction: fraction))
    }

    func finish(_ summary: BulkSummary) {
        write("\r\u{1B}[2K" + Self.line(summary, elapsed: summary.elapsed, fraction: 1) + "\n")
    }

    /// The share of all pushes answered: the input read so far (`consumed`, by bytes) scaled by
    /// the share of the tokens read that have an answer — the bytes alone reach 100% while the
    /// last `concurrency` pushes are still in flight.
    public static func fractionDone(consumed: Double?, read: UInt64, done: Int) -> Double? {
        guard let consumed, read > 0 else { return consumed.map { _ in 0 } }
        return consumed * min(1, Double(done) / Double(read))
    }

    /// One progress line, e.g. `[########----] 61% sent 6100 ok 6090 failed 10 5021/s ETA 0:01`.
    public static func line(_ s: BulkSummary, elapsed: Duration, fraction: Double?) -> String {
        let seconds = elapsed.inSeconds
        let rate = seconds > 0 ? Double(s.total) / seconds : 0
        var out = ""
        if let fraction {
            let width = 20
            let filled = Int((fraction * Double(width)).rounded(.down))
            out += "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled) + "] "
            // Rounded down: 99.9% is not done, and only the end shows 100%.
            out += String(format: "%3d%% ", Int((fraction * 100).rounded(.down)))
        }
        out += "sent \(s.total)  ok \(s.accepted)  failed \(s.notAccepted)  \(Int(rate.rounded()))/s"
        if let fraction, fraction > 0, fraction < 1 {
            let remaining = seconds / fraction - seconds
            out += "  ETA " + clockText(remaining)
        } else {
            out += "  " + clockText(seconds)
        }
        return out
    }

    static func clockText(_ seconds: Double) -> String {
        let total = Int(max(0, seconds).rounded())
        let h = total / 3600, m = (total % 3600) / 60, s = total % 60
        return h > 0 ? String(format: "%d:%02d:%02d", h, m, s) : String(format: "%d:%02d", m, s)
    }
}

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

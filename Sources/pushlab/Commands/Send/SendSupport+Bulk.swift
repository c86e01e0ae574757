import Foundation
import PushCore
import PushHTTP
import PushSend

/// `--tokens FILE`: the bulk send and its summary.
extension SendSupport {
    /// Runs a bulk send and prints its summary; returns the exit status.
    /// `tokensPath` is the file of targets (`--tokens`, or `--fids` for FCM installation IDs).
    /// Push `index` goes out on `clients[index % clients.count]` (`send` must pick the same
    /// client) and runs on that client's loop thread.
    static func runBulk(_ args: ParsedArguments, provider: PushProvider, endpoint: String, history: SendHistoryStore?,
                        tokensPath: String, clients: [any LoopHTTPTransport],
                        send: @escaping @Sendable (String, UInt64) async -> DeliveryReport) async throws -> Int32 {
        let concurrency = try args[Self.concurrency]
        var sinks: [any BulkReportSink] = []
        do {
            let reader = try TokenLineReader(path: tokensPath)
            if let out = try args[Self.out] { sinks.append(try ResultsJSONLWriter(path: out)) }
            var prune: PruneFileWriter?
            if let path = try args[pruneFile] {
                prune = try PruneFileWriter(path: path)
                sinks.append(prune!)
            }
            if let history {
                let batch = "bulk-" + UUID().uuidString.lowercased().prefix(8)
                sinks.append(HistoryRecorder(store: history, endpoint: endpoint, batch: String(batch)))
            }
            let progress = stderrIsTTY ? BulkProgress { writeError($0) } : nil
            let summary = try await BulkSender(concurrency: concurrency, executors: clients.map(\.executor)).run(tokens: reader, sinks: sinks, progress: progress, send: send)
            // With `--out -` the results own stdout; the summary goes to stderr.
            let say: (String) -> Void = try args[out] == "-" ? { printError($0) } : { emit($0) }
            if args[json] {
                say(try renderJSON(summary))
            } else {
                say(summaryText(summary, provider: provider, prunePath: try args[pruneFile]))
            }
            return summary.notAccepted == 0 ? ExitStatus.success : ExitStatus.failure
        } catch let error as BulkInputError {
            if error == .closedStandardOutput { throw error }  // runCLI ends it as in any closed pipe
            throw UsageError("\(error)")
        }
    }

    static func summaryText(_ s: BulkSummary, provider: PushProvider, prunePath: String?) -> String {
        var out = "\(provider.rawValue): \(s.total) sent in \(String(format: "%.2f", s.elapsed.seconds)) s"
        out += " (\(Int(s.rate.rounded()))/s): \(s.accepted) accepted, \(s.rejected) rejected, \(s.failed) failed, \(s.invalid) not sent"
        if s.retries > 0 { out += ", \(s.retries) retries" }
        for (reason, count) in s.reasons.sorted(by: { $0.value > $1.value }) {
            out += "\n  \(reason): \(count)"
        }
        if s.pruned > 0 { out += "\n  \(s.pruned) dead tokens" + (prunePath.map { " written to \($0)" } ?? " (pass --prune-file to collect them)") }
        return out
    }
}

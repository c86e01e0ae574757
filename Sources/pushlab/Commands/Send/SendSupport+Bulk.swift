import Foundation
import PushCore
import PushHTTP
import PushSend

/// `--tokens FILE`: the bulk send and its summary.
extension SendSupport {
    /// A bulk send's token reader and report sinks (`--out`, `--prune-file`, the history),
    /// opened before any client is made: a missing token file or an output that cannot be
    /// written is a usage error with no client started, and the reader opens first, so such an
    /// error leaves no half-written output behind.
    struct BulkFiles {
        let reader: TokenLineReader
        let sinks: [any BulkReportSink]
    }

    /// Opens `tokensPath` (`--tokens`, or `--fids` for FCM installation IDs) and the outputs.
    static func openBulk(_ args: ParsedArguments, tokensPath: String, history: SendHistoryStore?, endpoint: String) throws -> BulkFiles {
        do {
            let reader = try TokenLineReader(path: tokensPath)
            var sinks: [any BulkReportSink] = []
            if let out = try args[Self.out] { sinks.append(try ResultsJSONLWriter(path: out)) }
            if let path = try args[pruneFile] { sinks.append(try PruneFileWriter(path: path)) }
            if let history {
                let batch = "bulk-" + UUID().uuidString.lowercased().prefix(8)
                sinks.append(HistoryRecorder(store: history, endpoint: endpoint, batch: String(batch)))
            }
            return BulkFiles(reader: reader, sinks: sinks)
        } catch let error as BulkInputError {
            throw UsageError("\(error)")
        }
    }

    /// Runs a bulk send over `files` and prints its summary; returns the exit status.
    /// Push `index` goes out on `clients[index % clients.count]` (`send` must pick the same
    /// client) and runs on that client's loop thread.
    static func runBulk(_ args: ParsedArguments, provider: PushProvider, files: BulkFiles, clients: [any LoopHTTPTransport],
                        send: @escaping @Sendable (String, UInt64) async -> DeliveryReport) async throws -> Int32 {
        let concurrency = try args[Self.concurrency]
        do {
            let progress = stderrIsTTY ? BulkProgress { writeError($0) } : nil
            let summary = try await BulkSender(concurrency: concurrency, executors: clients.map(\.executor))
                .run(tokens: files.reader, sinks: files.sinks, progress: progress, send: send)
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

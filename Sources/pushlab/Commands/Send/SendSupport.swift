import Foundation
import PushCore
import PushHTTP
import PushSend

/// What `send apns` and `send fcm` share: connection, bulk, output and history options, and
/// the code that runs one push or a bulk send and reports it.
enum SendSupport {
    static let caFileOption = Option.string("--ca-file", name: "PEM", help: "Trust this CA instead of the system store (e.g. certs/ca.pem for the local emulator).")
    static let timeout = Option.duration("--timeout", help: "Deadline of one request attempt.", default: .seconds(30))
    static let retries = Option.int("--retries", help: "Retries after a transient failure (5xx, 429, connection lost), with backoff and jitter.", in: 0...20, default: 3)
    static let noValidate = Option.flag("--no-validate", help: "Send even when pre-flight checks fail (to see what the service answers).")
    static let connectionOptions: [any OptionDeclaration] = [caFileOption, timeout, retries, noValidate]

    static let tokens = Option.string("--tokens", name: "FILE", help: "Bulk: send to every token of FILE (one per line, '-' for stdin, # comments).")
    static let concurrency = Option.int("--concurrency", help: "Bulk: pushes in flight at once.", in: 1...100_000, default: 200)
    static let connections = Option.int("--connections", help: "Bulk: HTTP/2 connections to spread them over.", in: 1...64, default: 1)
    static let out = Option.string("--out", name: "FILE", help: "Bulk: write one JSON line per push (token, id, status, reason, timestamp, attempts, latency); '-' for stdout.")
    static let pruneFile = Option.string("--prune-file", name: "FILE", help: "Bulk: write the tokens the service says are dead, one per line.")
    static let bulkOptions: [any OptionDeclaration] = [tokens, concurrency, connections, out, pruneFile]

    static let history = Option.value(["--history"], name: "PATH", help: "Send-history database.", kind: .string,
                                      computed: "$XDG_DATA_HOME/pushlab/history.sqlite") { SendHistoryStore.defaultPath() }
    static let noHistory = Option.flag("--no-history", help: "Do not record this send in the history.")
    static let json = Option.flag("--json", help: "Print the result (or the bulk summary) as JSON.")
    static let verbose = Option.flag("--verbose", "-v", help: "Show each request and answer (bearer redacted, device token shortened) on stderr.")
    static let reportingOptions: [any OptionDeclaration] = [history, noHistory, json, verbose]

    /// The builder flags the send commands share with `pushlab payload`.
    static let builderOptions: [any OptionDeclaration] = PayloadBuilderFlags.options

    /// How a payload made from the builder flags is named in messages.
    static let builderSource = "<builder flags>"

    // MARK: - Options

    static func retryPolicy(_ args: ParsedArguments) throws -> RetryPolicy {
        RetryPolicy(maxAttempts: try args[retries] + 1)
    }

    /// `--ca-file`, checked readable before any client is made (nil: the system store).
    static func caFile(_ path: String?) throws -> String? {
        if let path, !FileManager.default.isReadableFile(atPath: path) {
            throw UsageError("--ca-file \(path): cannot read the file", fix: "pass a PEM file of CA certificates, e.g. certs/ca.pem")
        }
        return path
    }

    static func httpClients(_ args: ParsedArguments, bulk: Bool,
                            clientCertificate: HTTPClientConfiguration.ClientCertificate? = nil) throws -> [HTTPClient] {
        let connections = bulk ? try args[Self.connections] : 1
        let concurrency = try args[Self.concurrency]
        let caFile = try Self.caFile(try args[caFileOption])
        let timeout = try args[Self.timeout]
        let perConnection = max(1, (concurrency + connections - 1) / connections)
        return try (0..<connections).map { _ in
            var configuration = HTTPClientConfiguration(caFile: caFile, maxConcurrentStreams: max(perConnection, 1), maxConnectionsPerHost: 1,
                                                        requestTimeout: timeout + .seconds(5))
            configuration.clientCertificate = clientCertificate
            return try HTTPClient(configuration: configuration)
        }
    }

    /// The client a bulk send's push `index` goes out on (the loop it runs on: `runBulk`).
    static func client<C>(_ perConnection: [C], for index: UInt64) -> C {
        perConnection[Int(index % UInt64(perConnection.count))]
    }

    static func transport(_ clients: [HTTPClient]) -> any HTTPTransport {
        clients.count == 1 ? clients[0] : RoundRobinTransport(clients)
    }

    static func verboseLog(_ args: ParsedArguments) -> (@Sendable (String) -> Void)? {
        args[verbose] ? { @Sendable line in printError(line) } : nil
    }

    /// The history store, or nil with `--no-history`. A history that cannot be opened is a
    /// warning, never a reason not to send.
    static func openHistory(_ args: ParsedArguments) throws -> SendHistoryStore? {
        if args[noHistory] { return nil }
        let path = try args[history]
        do {
            return try SendHistoryStore(path: path)
        } catch {
            printError("pushlab: warning: cannot open the send history at \(path): \(error) (use --history PATH or --no-history)")
            return nil
        }
    }

    static func record(_ report: DeliveryReport, in history: SendHistoryStore?, endpoint: String) {
        guard let history else { return }
        do { try history.record([report], endpoint: endpoint) } catch {
            printError("pushlab: warning: could not record the send in \(history.path): \(error)")
        }
    }

    /// The payload bytes from the positional file (or `-`), else built from the builder flags.
    static func payloadBytes(_ args: ParsedArguments, fcm: Bool) throws -> (bytes: [UInt8], source: String) {
        let builderUsed = builderOptions.contains { args.isGiven($0) }
        if args.positionals.count > 1 {
            throw UsageError("give one payload file, got \(args.positionals.count): \(args.positionals.joined(separator: " "))")
        }
        if let file = args.positionals.first {
            if builderUsed { throw UsageError("give a payload file or the builder flags (--title, --body …), not both") }
            return (try readInput(file, what: "payload file"), file == "-" ? "<stdin>" : file)
        }
        guard builderUsed else {
            throw UsageError("nothing to send: give a payload file, or build one with --title/--body (see --help)")
        }
        return (try builtPayload(args, fcm: fcm), builderSource)
    }

    /// The payload the builder flags describe: an APNs payload, or an FCM send request
    /// (`{"message": …}`) whose target is replaced per send.
    static func builtPayload(_ args: ParsedArguments, fcm: Bool) throws -> [UInt8] {
        let b = try PayloadBuilderFlags.builder(args)
        do {
            // The target is spliced in per send; a placeholder topic keeps the builder's token
            // check out of the way (the sender checks each token itself).
            let value = fcm ? try b.fcmRequest(target: .topic("pushlab-builder")) : try b.apnsPayload()
            return value.minifiedBytes()
        } catch {
            throw UsageError("\(error)", fix: error.fix)
        }
    }

    static func seconds(_ d: Duration) -> Double {
        Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }

    // MARK: - Running

    /// Runs a bulk send and prints its summary; returns the exit status.
    /// `tokensPath` is the file of targets (`--tokens`, or `--fids` for FCM installation IDs).
    /// Push `index` goes out on `clients[index % clients.count]` (`send` must pick the same
    /// client) and runs on that client's loop thread.
    static func runBulk(_ args: ParsedArguments, provider: PushProvider, endpoint: String, history: SendHistoryStore?,
                        tokensPath: String, clients: [HTTPClient],
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
            let progress = stderrIsTTY ? BulkProgress { FileHandle.standardError.write(Data($0.utf8)) } : nil
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
            throw UsageError("\(error)")
        }
    }

    static func summaryText(_ s: BulkSummary, provider: PushProvider, prunePath: String?) -> String {
        var out = "\(provider.rawValue): \(s.total) sent in \(String(format: "%.2f", seconds(s.elapsed))) s"
        out += " (\(Int(s.rate.rounded()))/s): \(s.accepted) accepted, \(s.rejected) rejected, \(s.failed) failed, \(s.invalid) not sent"
        if s.retries > 0 { out += ", \(s.retries) retries" }
        for (reason, count) in s.reasons.sorted(by: { $0.value > $1.value }) {
            out += "\n  \(reason): \(count)"
        }
        if s.pruned > 0 { out += "\n  \(s.pruned) dead tokens" + (prunePath.map { " written to \($0)" } ?? " (pass --prune-file to collect them)") }
        return out
    }

    /// A device token or Firebase Installation ID shortened (first 8 characters + …) as everywhere
    /// pushlab prints one; FCM topics and conditions are not secrets and stay whole.
    static func printableTarget(_ target: String) -> String {
        DeviceToken.classify(target) == .invalid && !FirebaseInstallationID.isValid(target) ? target : DeviceToken.redacted(target)
    }

    /// Prints one push's result; returns the exit status.
    static func printSingle(_ r: DeliveryReport, fix: String?, extra: [String: String], json: Bool) throws -> Int32 {
        if json {
            var obj: [String: JSONValue] = [
                "provider": .string(r.provider.rawValue), "token": .string(printableTarget(r.target)), "outcome": .string(r.outcome.rawValue),
                "attempts": .number(JSONNumber(r.attempts)),
                "latency_ms": .number(JSONNumber((seconds(r.latency) * 1e6).rounded() / 1000)),
            ]
            obj[r.provider == .apns ? "apns_id" : "name"] = r.id.map { .string($0) } ?? .null
            obj["status"] = r.status.map { .number(JSONNumber($0)) } ?? .null
            obj["reason"] = r.reason.map { .string($0) } ?? .null
            // APNs 410's timestamp (ms since the epoch on the wire) as a date, like every date in --json.
            if let t = r.timestamp { obj["timestamp"] = .string(ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: Double(t) / 1000))) }
            if let kind = r.targetKind { obj["target_kind"] = .string(kind) }
            if let d = r.detail { obj["detail"] = .string(d) }
            if let fix, !r.isAccepted { obj["fix"] = .string(fix) }
            for (k, v) in extra { obj[k] = .string(v) }
            let members = obj.keys.sorted().map { JSONMember(key: $0, value: obj[$0]!) }
            emit(JSONValue.object(JSONObject(members)).prettyPrinted())
        } else {
            let ms = seconds(r.latency) * 1000
            let attempts = "\(r.attempts) attempt\(r.attempts == 1 ? "" : "s"), \(Int(ms.rounded())) ms"
            switch r.outcome {
            case .accepted:
                let idName = r.provider == .apns ? "apns-id" : "name"
                var line = "accepted: \(idName) \(r.id ?? "-") (\(r.status ?? 200), \(attempts))"
                for (k, v) in extra.sorted(by: { $0.key < $1.key }) { line += "\n  \(k): \(v)" }
                emit(line)
            case .rejected, .failed, .invalid:
                var line = "\(r.outcome.rawValue): \(r.reason ?? "error")"
                if let s = r.status { line += " (HTTP \(s), \(attempts))" }
                if let t = r.timestamp { line += "\n  token last valid: \(ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: Double(t) / 1000)))" }
                if let d = r.detail { line += "\n  \(d)" }
                if let fix { line += "\n  fix: \(fix)" }
                emit(line)
            }
        }
        switch r.outcome {
        case .accepted: return ExitStatus.success
        case .invalid: return ExitStatus.usage
        case .rejected, .failed: return ExitStatus.failure
        }
    }
}

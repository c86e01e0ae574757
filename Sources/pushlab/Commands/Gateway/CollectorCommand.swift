import Foundation
import PushCore
import PushHTTP
import PushMetrics

/// `pushlab collector`: the Customer.io-compatible metrics collector on its own ports.
enum CollectorCommand: Command {
    static let path = ["collector"]
    static let summary = "Run the metrics collector (/v1/track, /v1/b, /push/events) and store every metric in SQLite."
    static let discussion = """
        Accepts the three metric routes of the Customer.io SDKs (docs/metrics.md) over TLS (h2, \
        HTTP/1.1) on --port and cleartext (h2c, HTTP/1.1) on --h2c-port, checks Basic \
        authorization against --cdp-key / --legacy-key (none given: any key is accepted, a header \
        is still required), validates bodies, stores every request and metric in --db and prints \
        one line per metric. Fault plans (--fault, --fault-plan) make it refuse, slow or drop \
        requests on purpose. Runs until SIGINT/SIGTERM; then commits everything and exits. \
        Read the results with 'pushlab report --db …'.
        """
    static let host = Option.string("--host", name: "ADDR", help: "Address to listen on.", default: "127.0.0.1")
    static let port = Option.value(["--port"], name: "PORT", help: "TLS (h2 + HTTP/1.1) port; 0 picks a free one; 'off' disables it.", kind: .portOrOff, default: 8444)
    static let cleartextPort = Option.value(["--h2c-port"], name: "PORT", help: "Cleartext (h2c + HTTP/1.1) port; 0 picks a free one; 'off' disables it.", kind: .portOrOff, default: 8081)
    static let cert = Option.value(["--cert"], name: "PEM", help: "TLS certificate chain.", kind: .string,
                                   computed: "certs/server.pem") { ProjectFiles.defaultFile("certs/server.pem") }
    static let key = Option.value(["--key"], name: "PEM", help: "TLS private key.", kind: .string,
                                  computed: "certs/server.key") { ProjectFiles.defaultFile("certs/server.key") }
    static let db = Option.string("--db", name: "PATH", help: "SQLite file for the metrics (created if missing).", default: "pushlab-metrics.sqlite")
    static let cdpKeys = Option.strings("--cdp-key", name: "KEY", help: "CDP API key accepted on /v1/track and /v1/b.")
    static let legacyKeys = Option.strings("--legacy-key", name: "SITE:KEY", help: "Site id and API key accepted on /push/events.")
    static let faults = FaultFlags(example: "route=\(CIOMetricRoute.track.path),status=503,p=0.1,retry-after=2", docs: "docs/metrics.md")
    static let ack = Option.choice("--ack", name: "WHEN", help: "Answer accepted requests once committed (durable: survives kill -9) or once queued (before the commit: a crash loses what was answered in the last milliseconds; benchmarks/results/collector.md compares the two).",
                                   default: CollectorConfiguration().acknowledgement)
    static let quiet = Option.flag("--quiet", help: "No line per metric.")
    static let json = Option.flag("--json", help: "Print JSON lines (listening, metric, rejected, fault, stopped) instead of text.")
    static let bench = Option.flag("--bench", help: "Also answer POST /bench with an empty 200: the HTTP/2 stack with no route work, in the same process (benchmarks/collector.sh).")
    /// The same flag as `pushlab serve`'s (one declaration).
    static let eventLoops = ServeCommand.eventLoops

    static let options: [any OptionDeclaration] = [host, port, cleartextPort, cert, key, db, cdpKeys, legacyKeys] + faults.options + [ack, eventLoops, quiet, json, bench]

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        // Caught from the start: a SIGINT or SIGTERM sent as soon as the banner shows is kept, not
        // lost to the default action (or dropped while the handler is being set up).
        let signals = TerminationSignals()
        let configuration = try collectorConfiguration(args)
        // Every flag is checked before the database file is created: a bad flag leaves no file.
        let serverConfiguration = try serverConfiguration(args)
        let dbPath = try args[db]
        let store: MetricStore
        do {
            store = try MetricStore(path: dbPath)
        } catch {
            throw UsageError("--db \(dbPath): cannot open the SQLite file: \(error)", fix: "pass a writable path")
        }
        let console = DispatchQueue(label: "pushlab.collector.console")
        let quiet = args[Self.quiet], json = args[Self.json]
        let collector = try MetricsCollector(configuration: configuration, store: store) { event in
            if quiet, case .storeFailed = event {} else if quiet { return }
            let lines = json ? jsonLines(event, at: Date()) : liveLine(event, at: Date())
            console.async { lines.forEach(emit) }
        }
        let server = CollectorServer(collector: collector, configuration: serverConfiguration, benchRoute: args[bench])
        do {
            try server.start()
        } catch {
            throw UsageError("\(error)")
        }
        if json {
            var o: [String: Any] = ["event": "listening", "db": dbPath, "faults": configuration.faultPlan.rules.map(\.flagText)]
            if let url = server.boundAddresses?.tlsURL { o["tls"] = url }
            if let url = server.boundAddresses?.cleartextURL { o["cleartext"] = url }
            emit(jsonLine(o))
        } else if let bound = server.boundAddresses {
            if let url = bound.tlsURL { emit("\(url) (h2, http/1.1)") }
            if let url = bound.cleartextURL { emit("\(url) (h2c, http/1.1)") }
        }
        if !json { printStartNotes(configuration, dbPath: dbPath) }
        let signal = await signals.wait()
        printError("pushlab collector: signal \(signal), finishing in-flight requests")
        await server.stop()
        console.sync {}
        let c = collector.counters
        if json {
            emit(jsonLine(["event": "stopped", "requests": c.requests, "accepted": c.accepted, "rejected": c.rejected,
                           "faulted": c.faulted, "metrics": c.metrics, "duplicates": c.duplicates]))
        } else {
            emit("\(c.requests) requests: \(c.accepted) accepted, \(c.rejected) rejected, \(c.faulted) faulted; \(c.metrics) metrics, \(c.duplicates) duplicates")
        }
        return ExitStatus.success
    }

    private static func printStartNotes(_ configuration: CollectorConfiguration, dbPath: String) {
        emit("storing metrics in \(dbPath)")
        if configuration.credentials.cdpAPIKeys.isEmpty { emit("no --cdp-key: any CDP key is accepted on /v1/*") }
        if configuration.credentials.legacyKeys.isEmpty { emit("no --legacy-key: any site id:api key is accepted on /push/events") }
        for rule in configuration.faultPlan.rules { emit("fault: \(rule.flagText)") }
    }

    static func collectorConfiguration(_ args: ParsedArguments) throws -> CollectorConfiguration {
        var legacy: [String: String] = [:]
        for pair in try args[legacyKeys] {
            guard let (site, key) = CollectorCredentials.legacyPair(pair) else {
                throw UsageError("--legacy-key '\(pair)': expected SITE:KEY", fix: "e.g. --legacy-key 3f2a1b:abcdef0123")
            }
            legacy[site] = key
        }
        let cdp = Set(try args[cdpKeys])
        if cdp.contains("") { throw UsageError("--cdp-key: the key is empty", fix: "pass the CDP API key the app uses") }
        return CollectorConfiguration(credentials: CollectorCredentials(cdpAPIKeys: cdp, legacyKeys: legacy),
                                      faultPlan: try faults.plan(args), acknowledgement: try args[ack])
    }

    /// `--fault-plan FILE` then each `--fault`, seeded by `--fault-seed` (else the file's seed).
    static func serverConfiguration(_ args: ParsedArguments) throws -> HTTPServerConfiguration {
        let tlsPort = try args[port]
        let cleartextPort = try args[Self.cleartextPort]
        guard tlsPort != nil || cleartextPort != nil else {
            throw UsageError("--port off and --h2c-port off leave nothing to listen on", fix: "enable at least one listener")
        }
        let cert = try args[Self.cert]
        let key = try args[Self.key]
        if tlsPort != nil {
            for (flag, file) in [("--cert", cert), ("--key", key)] where !FileManager.default.isReadableFile(atPath: file) {
                throw UsageError("\(flag) \(file): cannot read the file",
                                 fix: "run from the repository root, pass \(flag) with a PEM file, or --port off")
            }
            KeyFilePermissions.warnIfShared(key, flag: "--key")
        }
        return HTTPServerConfiguration(host: try args[host], tlsPort: tlsPort, cleartextPort: cleartextPort,
                                       certificateFile: cert, privateKeyFile: key, eventLoops: try args[eventLoops])
    }

    /// One JSON object per line, keys sorted.
    static func jsonLine(_ object: [String: Any]) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    /// The JSON line(s) for one collector event; device tokens shortened as in text mode.
    static func jsonLines(_ event: CollectorEvent, at date: Date) -> [String] {
        let time = ISO8601Timestamp.format(date)
        switch event {
        case .accepted(let route, let metrics, let duplicates, _):
            return zip(metrics, duplicates).map { m, dup in
                var o: [String: Any] = ["event": "metric", "time": time, "route": route.path, "metric": m.metric.rawValue,
                                        "deliveryId": m.deliveryID, "token": shortToken(m.recipient), "duplicate": dup]
                if let t = m.originalTimestampText { o["timestamp"] = t }
                return jsonLine(o)
            }
        case .rejected(let route, let r):
            var o: [String: Any] = ["event": "rejected", "time": time, "route": route.path, "status": r.status, "error": r.code,
                                    "reason": r.reason]
            if let p = r.pointer { o["pointer"] = p }
            return [jsonLine(o)]
        case .faulted(let route, let d):
            var o: [String: Any] = ["event": "fault", "time": time, "route": route.path, "delayMs": Int(d.delay.seconds * 1000)]
            switch d.outcome {
            case .status(let code, _, _)?: o["status"] = code
            case .drop(let scope)?: o["drop"] = scope.rawValue
            case .stall(let hold)?: o["stallMs"] = Int(hold.seconds * 1000)
            case nil: break
            }
            return [jsonLine(o)]
        case .storeFailed(let reason):
            return [jsonLine(["event": "storeError", "time": time, "reason": reason])]
        }
    }

    /// The console line(s) for one collector event; device tokens shortened.
    static func liveLine(_ event: CollectorEvent, at date: Date) -> [String] {
        let time = String(ISO8601Timestamp.format(date).dropFirst(11).dropLast())
        func pad(_ s: String, _ n: Int) -> String { s.padding(toLength: max(n, s.count), withPad: " ", startingAt: 0) }
        switch event {
        case .accepted(let route, let metrics, let duplicates, _):
            return zip(metrics, duplicates).map { m, dup in
                var line = "\(time)  \(pad(route.path, 12)) \(pad(m.metric.rawValue, 9)) \(m.deliveryID)  token \(shortToken(m.recipient))"
                if let t = m.originalTimestampText { line += "  at \(t)" }
                if dup { line += "  DUPLICATE" }
                return line
            }
        case .rejected(let route, let rejection):
            return ["\(time)  \(pad(route.path, 12)) \(rejection.status) \(rejection.code): \(rejection.reason)"]
        case .faulted(let route, let decision):
            var what: [String] = []
            if decision.delay > .zero { what.append("+\(decision.delay.compactText)") }
            switch decision.outcome {
            case .status(let code, _, _)?: what.append("status \(code)")
            case .drop(let scope)?: what.append("drop \(scope.rawValue)")
            case .stall(let d)?: what.append("stall \(d.compactText)")
            case nil: break
            }
            return ["\(time)  \(pad(route.path, 12)) fault: \(what.joined(separator: ", "))"]
        case .storeFailed(let reason):
            return ["\(time)  store error (will retry): \(reason)"]
        }
    }
}

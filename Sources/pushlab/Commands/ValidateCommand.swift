import Foundation
import PushCore

/// `pushlab validate FILE…`: runs the rule catalog over APNs payloads, FCM v1 messages and
/// `.apns` simulator files, and prints each finding with its place, rule id and fix.
enum ValidateCommand: Command {
    static let path = ["validate"]
    static let summary = "Check APNs payloads, FCM v1 messages and .apns files against the rule catalog."
    static let positionalUsage = "FILE… (- for stdin)"
    static let discussion = """
    The format is detected from the content (a top-level "message" is FCM, "Simulator Target Bundle" \
    or a .apns file name is a simulator file, anything else an APNs payload); --format overrides it. \
    APNs request headers can be given to check them with the payload. Exit status: 0 no errors \
    (warnings allowed unless --strict), 1 errors found, 2 unreadable input (a missing file, or one \
    that is not JSON: syntax, comments, encoding, nesting, empty) or bad usage. \
    Files over 1 MiB are refused unread (APNs payloads are at most 4 KB).
    """
    static let format = Option.value(["--format"], name: "FORMAT", help: "apns, fcm, simulator or auto.",
                                     kind: ValueKind<PayloadFormat?>(parse: { raw, _ in try parseFormat(raw) }, text: { $0?.rawValue ?? "auto" }, example: "auto"),
                                     default: nil)
    static let json = Option.flag("--json", help: "Print the reports as JSON.")
    static let strict = Option.flag("--strict", help: "Fail (exit 1) on warnings too.")
    static let rules = Option.flag("--rules", help: "List the rule catalog instead of validating.")
    static let markdown = Option.flag("--markdown", help: "With --rules: print the catalog as docs/validation.md.")
    static let pushType = Option.string("--push-type", name: "TYPE", help: "apns-push-type to check the payload against (default: inferred from the payload).")
    static let priority = Option.string("--priority", name: "N", help: "apns-priority to check (10, 5 or 1).")
    static let topic = Option.string("--topic", name: "TOPIC", help: "apns-topic to check against the push type's suffix.")
    static let collapseID = Option.string("--collapse-id", name: "ID", help: "apns-collapse-id to check (at most 64 bytes).")
    static let token = Option.string("--token", name: "TOKEN", help: "APNs device token to check (shape, FCM mix-up).")
    static let repeatCount = Option.int("--repeat", help: "Benchmark: validate every input N times in-process and print the throughput to stderr.", in: 1...100_000_000)

    static let options: [any OptionDeclaration] = [format, json, strict, rules, markdown, pushType, priority, topic, collapseID, token, repeatCount]

    /// Generous cap: a payload is ≤ 5 KB, so anything near this is the wrong file.
    static let maxInputBytes = 1 << 20

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        if args[rules] {
            if args[markdown] {
                writeOutput(RuleCatalog.markdown())
                return ExitStatus.success
            }
            return listRules(json: args[json])
        }
        guard !args.positionals.isEmpty else {
            throw UsageError("no file given", fix: "pass one or more payload files, or - to read standard input")
        }
        let format = try args[Self.format]
        let context = APNsRequest(pushType: try args[pushType], priority: try args[priority],
                                  topic: try args[topic], collapseID: try args[collapseID],
                                  deviceToken: try args[token] ?? "")
        let validator = Validator(options: ValidationOptions(apns: context, maxInputBytes: maxInputBytes))
        let strict = args[Self.strict]
        var results: [FileResult] = []
        for path in args.positionals {
            do {
                let bytes = try readBounded(path)
                let chosen = format ?? (path.hasSuffix(".apns") ? .simulator : nil)
                results.append(FileResult(path: path, report: validator.validate(bytes: bytes, as: chosen), unreadable: nil))
            } catch let error as UsageError {
                results.append(FileResult(path: path, report: nil, unreadable: error))
            }
        }
        if let n = try args[repeatCount] {
            try benchmark(args.positionals, repeat: n, validator: validator, format: format)
        }
        if args[json] {
            emit(try renderJSON(ValidateOutput(results: results, strict: strict)))
        } else {
            for r in results { printHuman(r, strict: strict) }
        }
        // A file that is not JSON is unreadable input (2), as in send, nse, open and the rest;
        // a file that parses and breaks a rule fails validation (1).
        if results.contains(where: { $0.unreadable != nil || $0.report?.unparsable == true }) { return ExitStatus.usage }
        return results.allSatisfy { $0.report!.passes(strict: strict) } ? ExitStatus.success : ExitStatus.failure
    }

    /// Times parse+validate and parse-only over the inputs, `n` rounds each (benchmarks/validate.sh).
    static func benchmark(_ paths: [String], repeat n: Int, validator: Validator, format: PayloadFormat?) throws {
        let inputs = try paths.filter { $0 != "-" }.map { (bytes: try readBounded($0), format: format ?? ($0.hasSuffix(".apns") ? PayloadFormat.simulator : nil)) }
        let totalBytes = inputs.reduce(0) { $0 + $1.bytes.count }
        let clock = ContinuousClock()
        var findings = 0
        let validateTime = clock.measure {
            for _ in 0..<n { for input in inputs { findings &+= validator.validate(bytes: input.bytes, as: input.format).findings.count } }
        }
        let parser = JSONParser()
        var parsed = 0
        let parseTime = clock.measure {
            for _ in 0..<n { for input in inputs { if (try? parser.parse(input.bytes)) != nil { parsed &+= 1 } } }
        }
        func rate(_ d: Duration) -> Double {
            Double(n * inputs.count) / d.seconds
        }
        let count = n * inputs.count
        printError("bench: files=\(inputs.count) bytes=\(totalBytes) rounds=\(n) payloads=\(count) findings=\(findings / n)")
        printError("bench: validate \(validateTime) → \(Int(rate(validateTime))) payloads/s")
        printError("bench: parse-only \(parseTime) → \(Int(rate(parseTime))) payloads/s (parsed ok per round: \(parsed / n))")
    }

    static func parseFormat(_ raw: String?) throws -> PayloadFormat? {
        guard let raw, raw != "auto" else { return nil }
        guard let f = PayloadFormat(rawValue: raw) else {
            throw UsageError("--format must be apns, fcm, simulator or auto, got '\(raw)'")
        }
        return f
    }

    /// Reads a file or stdin, refusing anything over the cap before reading it all.
    static func readBounded(_ path: String) throws -> [UInt8] {
        let tooLarge = { (size: Int) in
            UsageError("\(path): \(size > maxInputBytes ? "\(size) bytes is" : "more than \(maxInputBytes) bytes is") larger than the \(maxInputBytes / 1024) KiB limit for validate; APNs payloads are at most 4096 bytes (5120 for VoIP)",
                       fix: "check that this is a push payload file")
        }
        if path == "-" {
            var out: [UInt8] = []
            let input = FileHandle.standardInput
            while true {
                let chunk = input.readData(ofLength: 64 * 1024)
                if chunk.isEmpty { break }
                out += chunk
                if out.count > maxInputBytes { throw tooLarge(-1) }
            }
            return out
        }
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir) else {
            throw UsageError("\(path): no such file", fix: "check the path")
        }
        if isDir.boolValue { throw UsageError("\(path): is a directory, expected a payload file", fix: "pass the payload files inside it, e.g. \(path)/*.json") }
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        if size > maxInputBytes { throw tooLarge(size) }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw UsageError("\(path): cannot read the file (permission denied?)", fix: "check its permissions (ls -l \(path))")
        }
        defer { try? handle.close() }
        // Read at most cap+1 bytes: a file that grows (or a FIFO) cannot blow the memory bound.
        let data = (try? handle.read(upToCount: maxInputBytes + 1)) ?? Data()
        if data.count > maxInputBytes { throw tooLarge(data.count) }
        return Array(data)
    }

    struct FileResult {
        var path: String
        var report: ValidationReport?
        var unreadable: UsageError?
    }

    static func printHuman(_ r: FileResult, strict: Bool) {
        guard let report = r.report else {
            printError("pushlab validate: \(r.unreadable!)")
            return
        }
        var header = "\(r.path): "
        let errors = report.errors.count, warnings = report.warnings.count, infos = report.findings.count - errors - warnings
        header += report.passes(strict: strict) ? "ok" : "FAILED"
        var facts: [String] = []
        if let f = report.format { facts.append(f == .fcm ? "FCM message" : f == .simulator ? "simulator file" : "APNs payload") }
        if let t = report.pushType { facts.append("\(t.rawValue) push") }
        // The size of the body as `send` sends it (PushCore `bodyAsSent`), not of the file as written.
        if let n = report.byteCount, let limit = report.byteLimit { facts.append("\(n)/\(limit) bytes \(APNsRequestRules.bodyFormAsSent), as sent") }
        if !facts.isEmpty { header += " — " + facts.joined(separator: ", ") }
        if !report.findings.isEmpty { header += " — \(errors) error\(errors == 1 ? "" : "s"), \(warnings) warning\(warnings == 1 ? "" : "s")" + (infos > 0 ? ", \(infos) info" : "") }
        emit(header)
        for f in report.findings {
            let position = f.location.map { "\(r.path):\($0.line):\($0.column)" } ?? r.path
            emit("  \(position)  \(f.place)  \(f.ruleID)  \(f.severity.rawValue): \(f.message)")
            emit("      fix: \(f.fix)")
        }
    }

    static func listRules(json: Bool) -> Int32 {
        if json {
            emit((try? renderJSON(RuleCatalog.all)) ?? "[]")
            return ExitStatus.success
        }
        let width = (RuleCatalog.all.map(\.id.count).max() ?? 0) + 2
        for rule in RuleCatalog.all {
            let enforced = rule.apnsReason.map { "APNs \($0)" } ?? rule.enforcedBy.rawValue
            emit(rule.id.padding(toLength: width, withPad: " ", startingAt: 0)
                 + rule.severity.rawValue.padding(toLength: 9, withPad: " ", startingAt: 0)
                 + "[\(enforced)] " + rule.summary)
        }
        emit("\n\(RuleCatalog.all.count) rules. Details and fixes: docs/validation.md")
        return ExitStatus.success
    }
}

/// The `--json` shape of `pushlab validate`.
struct ValidateOutput: Encodable {
    struct File: Encodable {
        var file: String
        var format: String?
        var pushType: String?
        var bytes: Int?
        /// What `bytes` measured: the body as send sends it (PushCore `bodyFormAsSent`).
        var bytesAs: String?
        var limit: Int?
        var passed: Bool
        var error: String?
        var findings: [ValidationFinding]
    }
    var files: [File]
    var errors: Int
    var warnings: Int
    var passed: Bool

    init(results: [ValidateCommand.FileResult], strict: Bool) {
        files = results.map { r in
            File(file: r.path, format: r.report?.format?.rawValue, pushType: r.report?.pushType?.rawValue,
                 bytes: r.report?.byteCount, bytesAs: r.report?.byteCount.map { _ in APNsRequestRules.bodyFormAsSent + ", as sent" },
                 limit: r.report?.byteLimit, passed: r.report?.passes(strict: strict) ?? false,
                 error: r.unreadable?.description, findings: r.report?.findings ?? [])
        }
        errors = results.reduce(0) { $0 + ($1.report?.errors.count ?? 0) }
        warnings = results.reduce(0) { $0 + ($1.report?.warnings.count ?? 0) }
        passed = files.allSatisfy(\.passed)
    }
}

import Foundation

/// Why a fault plan could not be read. Each case names where (flag number or file + JSON
/// pointer) and the field, and `fix` says what to write instead.
public enum FaultPlanError: Error, Sendable, Equatable, CustomStringConvertible {
    case unreadableFile(path: String, reason: String)
    case malformedJSON(location: String, reason: String)
    case malformedSpec(location: String, part: String)
    case unknownField(location: String, field: String)
    case invalidValue(location: String, field: String, value: String, expected: String)
    case missingEffect(location: String)
    case conflictingOutcomes(location: String, fields: [String])

    public var description: String {
        switch self {
        case .unreadableFile(let path, let reason): return "\(path): cannot read fault plan: \(reason)"
        case .malformedJSON(let location, let reason): return "\(location): not a fault plan: \(reason)"
        case .malformedSpec(let location, let part): return "\(location): '\(part)' is not key=value"
        case .unknownField(let location, let field): return "\(location): unknown field '\(field)'"
        case .invalidValue(let location, let field, let value, let expected):
            return "\(location): field '\(field)' has '\(value)', expected \(expected)"
        case .missingEffect(let location): return "\(location): the rule does nothing"
        case .conflictingOutcomes(let location, let fields):
            return "\(location): a rule has one outcome, got \(fields.map { "'\($0)'" }.joined(separator: " and "))"
        }
    }

    public var fix: String {
        switch self {
        case .unreadableFile: return "check the path given to --fault-plan"
        case .malformedJSON: return #"write {"seed": 42, "rules": [{"route": "/v1/track", "status": 503, "p": 0.1}]}"#
        case .malformedSpec: return "write fields as key=value separated by commas, e.g. route=/v1/track,status=503,p=0.1"
        case .unknownField: return "use one of: " + FaultPlan.fieldNames.joined(separator: ", ")
        case .invalidValue(_, let field, _, _): return "e.g. " + (FaultPlan.fieldExamples[field] ?? "see docs/metrics.md")
        case .missingEffect: return "add status=…, latency=…, drop=stream|connection, stall=… or goaway-after=…"
        case .conflictingOutcomes: return "split it into two rules (--fault twice)"
        }
    }
}

extension FaultPlan {
    /// Every field a rule may carry, in the order a written rule lists them.
    public static let fieldNames = ["route", "method", "p", "requests", "status", "retry-after", "reason",
                                    "latency", "drop", "stall", "goaway-after"]
    static let fieldExamples: [String: String] = [
        "route": "route=/v1/track, route=/3/device/{token}, route=/v1/* or route=*",
        "method": "method=POST",
        "p": "p=0.1 (a probability from 0 to 1)",
        "requests": "requests=100-200, requests=100- or requests=7 (1-based request numbers on the route)",
        "status": "status=503 (100 to 599)",
        "retry-after": "retry-after=2 (whole seconds, with status=…)",
        "reason": "reason=ServiceUnavailable (with status=…)",
        "latency": "latency=200ms, latency=uniform:50ms:300ms or latency=normal:200ms:50ms",
        "drop": "drop=stream or drop=connection",
        "stall": "stall=30s",
        "goaway-after": "goaway-after=100 (streams per connection, at least 1)",
        "seed": "\"seed\": 42 (a whole number ≥ 0)",
    ]

    /// Parses compact flag specs (`--fault` values), one rule each, into a plan with `seed`.
    public static func parse(flags: [String], seed: UInt64 = 0) throws(FaultPlanError) -> FaultPlan {
        var rules: [FaultRule] = []
        for (i, spec) in flags.enumerated() {
            let location = flags.count == 1 ? "--fault '\(spec)'" : "--fault #\(i + 1) '\(spec)'"
            var fields: [(String, String)] = []
            for part in spec.split(separator: ",", omittingEmptySubsequences: true) {
                guard let eq = part.firstIndex(of: "="), eq != part.startIndex else {
                    throw .malformedSpec(location: location, part: String(part))
                }
                fields.append((part[..<eq].trimmingCharacters(in: .whitespaces).lowercased(),
                               String(part[part.index(after: eq)...]).trimmingCharacters(in: .whitespaces)))
            }
            rules.append(try parseRule(fields, location: { _ in location }))
        }
        return FaultPlan(seed: seed, rules: rules)
    }

    /// Parses a JSON plan file's bytes; `source` (the file name) prefixes every error.
    public static func parse(json: [UInt8], source: String) throws(FaultPlanError) -> FaultPlan {
        let root: [String: Any]
        do {
            guard let object = try JSONSerialization.jsonObject(with: Data(json), options: [.fragmentsAllowed]) as? [String: Any] else {
                throw FaultPlanError.malformedJSON(location: source, reason: "the top level must be an object with \"rules\"")
            }
            root = object
        } catch let error as FaultPlanError {
            throw error
        } catch {
            // Foundation's text ("The data is not in the correct format") names nothing: say what is wrong.
            let empty = json.allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
            throw .malformedJSON(location: source, reason: empty ? "the file is empty" : "invalid JSON (it does not parse)")
        }
        for key in root.keys where key != "seed" && key != "rules" {
            throw .unknownField(location: "\(source) /\(key)", field: key)
        }
        var seed: UInt64 = 0
        if let raw = root["seed"] {
            guard let n = raw as? NSNumber, !isBoolean(n), let s = UInt64(exactly: n.doubleValue) ?? UInt64(n.stringValue) else {
                throw .invalidValue(location: "\(source) /seed", field: "seed", value: "\(raw)", expected: "a whole number ≥ 0")
            }
            seed = s
        }
        guard let rawRules = root["rules"] as? [Any] else {
            throw .malformedJSON(location: "\(source) /rules", reason: "\"rules\" must be an array of rule objects")
        }
        var rules: [FaultRule] = []
        for (i, raw) in rawRules.enumerated() {
            guard let object = raw as? [String: Any] else {
                throw .malformedJSON(location: "\(source) /rules/\(i)", reason: "a rule must be an object")
            }
            var fields: [(String, String)] = []
            for key in object.keys.sorted() {
                let value = object[key]!
                let text: String
                if let s = value as? String {
                    text = s
                } else if let n = value as? NSNumber, !isBoolean(n) {
                    text = n.stringValue
                } else {
                    throw .invalidValue(location: "\(source) /rules/\(i)/\(key)", field: key, value: "\(value)",
                                        expected: "a string or a number")
                }
                fields.append((key, text))
            }
            rules.append(try parseRule(fields, location: { field in "\(source) /rules/\(i)" + (field.map { "/\($0)" } ?? "") }))
        }
        return FaultPlan(seed: seed, rules: rules)
    }

    /// Reads and parses a JSON plan file.
    public static func load(path: String) throws(FaultPlanError) -> FaultPlan {
        guard let data = FileManager.default.contents(atPath: path) else {
            let reason = FileManager.default.fileExists(atPath: path) ? "permission denied or a directory" : "no such file"
            throw .unreadableFile(path: path, reason: reason)
        }
        return try parse(json: Array(data), source: path)
    }

    private static func isBoolean(_ n: NSNumber) -> Bool {
        // JSON true/false arrive as boolean NSNumbers; a rule field never takes a boolean.
        let type = String(cString: n.objCType)
        return type == "c" || type == "B"
    }

    /// One rule from its fields; `location(field)` names where an error points.
    static func parseRule(_ fields: [(String, String)], location: (String?) -> String) throws(FaultPlanError) -> FaultRule {
        var rule = FaultRule()
        var outcomes: [String] = []
        var retryAfter: Int?
        var reason: String?
        var status: Int?
        func bad(_ field: String, _ value: String, _ expected: String) -> FaultPlanError {
            .invalidValue(location: location(field), field: field, value: value, expected: expected)
        }
        for (field, value) in fields {
            switch field {
            case "route":
                guard value == "*" || value.hasPrefix("/") else { throw bad(field, value, "a path starting with / or *") }
                rule.route = value
            case "method":
                guard !value.isEmpty, value.allSatisfy({ $0.isLetter }) else { throw bad(field, value, "an HTTP method such as POST") }
                rule.method = value.uppercased()
            case "p", "probability":
                guard let p = Double(value), (0...1).contains(p) else { throw bad(field, value, "a probability from 0 to 1") }
                rule.probability = p
            case "requests":
                guard let window = parseWindow(value) else { throw bad(field, value, "N, N-M or N- with 1 ≤ N ≤ M") }
                rule.requests = window
            case "status":
                guard let s = Int(value), (100...599).contains(s) else { throw bad(field, value, "an HTTP status from 100 to 599") }
                status = s
                outcomes.append(field)
            case "retry-after":
                guard let r = Int(value), r >= 0 else { throw bad(field, value, "whole seconds ≥ 0") }
                retryAfter = r
            case "reason":
                guard !value.isEmpty else { throw bad(field, value, "a non-empty reason text") }
                reason = value
            case "latency":
                guard let l = parseLatency(value) else { throw bad(field, value, "200ms, uniform:MIN:MAX or normal:MEAN:DEVIATION") }
                rule.latency = l
            case "drop":
                guard let scope = DropScope(rawValue: value.lowercased()) else { throw bad(field, value, "stream or connection") }
                rule.outcome = .drop(scope)
                outcomes.append(field)
            case "stall":
                guard let d = parseFaultDuration(value) else { throw bad(field, value, "a duration such as 30s or 500ms") }
                rule.outcome = .stall(d)
                outcomes.append(field)
            case "goaway-after":
                guard let n = Int(value), n >= 1 else { throw bad(field, value, "a whole number ≥ 1") }
                rule.goAwayAfterStreams = n
            default:
                throw .unknownField(location: location(field), field: field)
            }
        }
        if outcomes.count > 1 { throw .conflictingOutcomes(location: location(nil), fields: outcomes) }
        if let status {
            rule.outcome = .status(status, retryAfter: retryAfter, reason: reason)
        } else if let retryAfter {
            throw bad("retry-after", "\(retryAfter)", "no retry-after without status=…")
        } else if let reason {
            throw bad("reason", reason, "no reason without status=…")
        }
        if rule.outcome == nil && rule.latency == nil && rule.goAwayAfterStreams == nil {
            throw .missingEffect(location: location(nil))
        }
        return rule
    }

    static func parseWindow(_ text: String) -> RequestWindow? {
        let parts = text.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard let lower = Int(parts[0].trimmingCharacters(in: .whitespaces)), lower >= 1 else { return nil }
        if parts.count == 1 { return RequestWindow(lower: lower, upper: lower) }
        let rest = parts[1].trimmingCharacters(in: .whitespaces)
        if rest.isEmpty { return RequestWindow(lower: lower, upper: nil) }
        guard let upper = Int(rest), upper >= lower else { return nil }
        return RequestWindow(lower: lower, upper: upper)
    }

    static func parseLatency(_ text: String) -> LatencyDistribution? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        switch (parts.first?.lowercased(), parts.count) {
        case (_, 1): return parseFaultDuration(parts[0]).map { .fixed($0) }
        case ("fixed", 2): return parseFaultDuration(parts[1]).map { .fixed($0) }
        case ("uniform", 3):
            guard let a = parseFaultDuration(parts[1]), let b = parseFaultDuration(parts[2]), a <= b else { return nil }
            return .uniform(a, b)
        case ("normal", 3):
            guard let m = parseFaultDuration(parts[1]), let s = parseFaultDuration(parts[2]) else { return nil }
            return .normal(mean: m, deviation: s)
        default: return nil
        }
    }
}

/// `250ms`, `2s`, `1.5s`, `2m`, or a bare number of seconds; nil when malformed or negative.
public func parseFaultDuration(_ raw: String) -> Duration? {
    let text = raw.trimmingCharacters(in: .whitespaces).lowercased()
    let units: [(String, Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600)]
    for (suffix, scale) in units where text.hasSuffix(suffix) {
        if suffix == "s" && text.hasSuffix("ms") { continue }
        guard let n = Double(text.dropLast(suffix.count)), n >= 0, n.isFinite else { return nil }
        return .milliseconds(Int64((n * scale * 1000).rounded()))
    }
    guard let n = Double(text), n >= 0, n.isFinite else { return nil }
    return .milliseconds(Int64((n * 1000).rounded()))
}

extension LatencyDistribution {
    /// Parses the text form `LatencyDistribution.text` writes (`fixed:200ms`, `uniform:50ms:300ms`,
    /// `normal:200ms:50ms`, or a bare duration); nil when malformed.
    public init?(text: String) {
        guard let d = FaultPlan.parseLatency(text) else { return nil }
        self = d
    }
}

import Foundation
import PushCore

/// A declared option. `valueName == nil` makes it a flag.
struct OptionSpec {
    var names: [String]
    var valueName: String?
    var help: String
    var repeatable = false
    /// Shown in help; the command applies it.
    var defaultDescription: String?

    static func flag(_ names: String..., help: String) -> OptionSpec {
        OptionSpec(names: names, valueName: nil, help: help)
    }
    static func value(_ names: String..., name: String, help: String, default def: String? = nil, repeatable: Bool = false) -> OptionSpec {
        OptionSpec(names: names, valueName: name, help: help, repeatable: repeatable, defaultDescription: def)
    }
    var primary: String { names[0] }
}

/// Options every command accepts.
let commonOptions: [OptionSpec] = [
    .flag("--help", "-h", help: "Show this help."),
]

/// Parsed command line: values keyed by the option's primary name.
struct ParsedArguments {
    private(set) var values: [String: [String]] = [:]
    private(set) var flags: Set<String> = []
    var positionals: [String] = []

    func flag(_ name: String) -> Bool { flags.contains(name) }
    func value(_ name: String) -> String? { values[name]?.last }
    func all(_ name: String) -> [String] { values[name] ?? [] }

    /// A value that must be present, from the flag or else an environment variable.
    func required(_ name: String, env: String? = nil, fix: String) throws -> String {
        if let v = value(name) { return v }
        if let env, let v = ProcessInfo.processInfo.environment[env], !v.isEmpty { return v }
        let via = env.map { " (or set \($0))" } ?? ""
        throw UsageError("missing \(name)\(via)", fix: fix)
    }
    func optional(_ name: String, env: String) -> String? {
        if let v = value(name) { return v }
        if let v = ProcessInfo.processInfo.environment[env], !v.isEmpty { return v }
        return nil
    }
    func int(_ name: String, range: ClosedRange<Int>? = nil) throws -> Int? {
        guard let raw = value(name) else { return nil }
        guard let v = Int(raw) else {
            throw UsageError("\(name) takes a whole number, got '\(raw)'",
                             fix: range.map { "pass a whole number from \($0.lowerBound) to \($0.upperBound)" } ?? "e.g. \(name) 10")
        }
        if let range, !range.contains(v) {
            throw UsageError("\(name) must be between \(range.lowerBound) and \(range.upperBound), got \(v)",
                             fix: "pass a value from \(range.lowerBound) to \(range.upperBound)")
        }
        return v
    }
    func double(_ name: String, range: ClosedRange<Double>? = nil) throws -> Double? {
        guard let raw = value(name) else { return nil }
        guard let v = Double(raw) else {
            throw UsageError("\(name) takes a number, got '\(raw)'",
                             fix: range.map { "pass a number from \($0.lowerBound) to \($0.upperBound)" } ?? "e.g. \(name) 1.5")
        }
        if let range, !range.contains(v) {
            throw UsageError("\(name) must be between \(range.lowerBound) and \(range.upperBound), got \(v)",
                             fix: "pass a value from \(range.lowerBound) to \(range.upperBound)")
        }
        return v
    }
    /// A duration like `30s`, `250ms`, `2m` or a bare number of seconds.
    func duration(_ name: String) throws -> Duration? {
        guard let raw = value(name) else { return nil }
        guard let d = parseFaultDuration(raw) else {
            throw UsageError("\(name) takes a duration like 30s, 250ms or 2m, got '\(raw)'", fix: "e.g. \(name) 30s")
        }
        return d
    }

    mutating func append(_ name: String, _ value: String) { values[name, default: []].append(value) }
    mutating func setFlag(_ name: String) { flags.insert(name) }
}

enum ArgumentParser {
    static func parse(_ arguments: [String], options: [OptionSpec], command: String) throws -> ParsedArguments {
        var byName: [String: OptionSpec] = [:]
        for spec in options + commonOptions { for n in spec.names { byName[n] = spec } }
        var parsed = ParsedArguments()
        var i = 0
        var onlyPositionals = false
        while i < arguments.count {
            let arg = arguments[i]
            i += 1
            if onlyPositionals || arg == "-" || !arg.hasPrefix("-") {
                parsed.positionals.append(arg)
                continue
            }
            if arg == "--" { onlyPositionals = true; continue }
            var name = arg
            var inline: String?
            if let eq = arg.firstIndex(of: "="), arg.hasPrefix("--") {
                name = String(arg[..<eq])
                inline = String(arg[arg.index(after: eq)...])
            }
            guard let spec = byName[name] else {
                let close = byName.keys.filter { $0.hasPrefix("--") }.min { editDistance($0, name) < editDistance($1, name) }
                let hint = close.flatMap { editDistance($0, name) <= 3 ? " Did you mean \($0)?" : nil } ?? ""
                throw UsageError("unknown option \(name) for 'pushlab \(command)'.\(hint)", fix: "see 'pushlab \(command) --help'")
            }
            if spec.valueName == nil {
                if inline != nil { throw UsageError("\(name) takes no value", fix: "write \(name) alone, without =…") }
                parsed.setFlag(spec.primary)
                continue
            }
            let value: String
            if let inline {
                value = inline
            } else {
                guard i < arguments.count else {
                    throw UsageError("\(name) needs a value (\(spec.valueName!))", fix: "see 'pushlab \(command) --help'")
                }
                value = arguments[i]
                i += 1
            }
            if !spec.repeatable, parsed.value(spec.primary) != nil {
                throw UsageError("\(name) given more than once", fix: "give \(name) once")
            }
            parsed.append(spec.primary, value)
        }
        return parsed
    }

    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        var row = Array(0...b.count)
        for i in 1...max(a.count, 1) where !a.isEmpty {
            var prev = row[0]
            row[0] = i
            for j in 1...max(b.count, 1) where !b.isEmpty {
                let cur = row[j]
                row[j] = min(row[j] + 1, row[j - 1] + 1, prev + (a[i - 1] == b[j - 1] ? 0 : 1))
                prev = cur
            }
        }
        return row[b.count]
    }
}

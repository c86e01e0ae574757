import Foundation
import PushCore

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
            if let removal = byName[name]?.removal { throw removal }
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
            if !spec.repeatable, parsed.raw(spec.primary) != nil {
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

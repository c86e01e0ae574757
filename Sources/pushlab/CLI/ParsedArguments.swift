import Foundation
import PushCore

/// Parsed command line: raw values keyed by the option's primary name. Commands read them
/// through their declarations (`try args[Self.port]`, `args[Self.quiet]`).
struct ParsedArguments: Sendable {
    private var values: [String: [String]] = [:]
    private var flags: Set<String> = []
    var positionals: [String] = []

    subscript<Value>(_ option: TypedOption<Value>) -> Value {
        get throws { try option.read(self) }
    }
    subscript(_ flag: Flag) -> Bool { flags.contains(flag.spec.primary) }

    /// True when the option was given on the command line (or filled from a profile).
    func isGiven(_ option: any OptionDeclaration) -> Bool {
        let name = option.spec.primary
        return flags.contains(name) || values[name] != nil
    }

    /// The value, else `missing NAME (or set ENV)` with the fix (exit 2).
    func required<T>(_ option: TypedOption<T?>, fix: String) throws -> T {
        if let v = try option.read(self) { return v }
        let via = option.spec.environment.map { " (or set \($0))" } ?? ""
        throw UsageError("missing \(option.spec.primary)\(via)", fix: fix)
    }

    /// The raw text of an option by its primary name, for the declarations that parse it.
    func raw(_ name: String) -> String? { values[name]?.last }
    func rawAll(_ name: String) -> [String] { values[name] ?? [] }

    mutating func append(_ name: String, _ value: String) { values[name, default: []].append(value) }
    mutating func setFlag(_ name: String) { flags.insert(name) }

    /// Sets `option` to `value` unless it was given (the profile defaults: the command line wins).
    mutating func fill(_ option: any OptionDeclaration, _ value: String?) {
        if !isGiven(option), let value { append(option.spec.primary, value) }
    }

    mutating func setFlag(_ flag: Flag) { flags.insert(flag.spec.primary) }
}

import Foundation
import PushCore

/// The declarations: `Option.int("--port", name: "PORT", help: "…", in: 0...65535, default: 8443)`.
enum Option {
    static func flag(_ names: String..., help: String) -> Flag {
        Flag(spec: OptionSpec(names: names, valueName: nil, help: help))
    }

    /// A removed option: hidden from help, man pages and completions; given, it fails with
    /// `message` and `fix` (exit 2) instead of "unknown option".
    static func removed(_ name: String, message: String, fix: String) -> RemovedOption {
        RemovedOption(spec: OptionSpec(names: [name], valueName: nil, help: "", removal: UsageError(message, fix: fix)))
    }

    /// With a literal default: the command reads the default when the flag is absent, and help
    /// prints the default's text.
    static func value<T>(_ names: [String], name: String, help: String, kind: ValueKind<T>, default value: T) -> TypedOption<T> {
        let flag = names[0]
        let read: @Sendable (ParsedArguments) throws -> T = { args in
            guard let raw = args.raw(flag) else { return value }
            return try kind.parse(raw, flag)
        }
        return TypedOption(spec: OptionSpec(names: names, valueName: name, help: help, defaultDescription: kind.text(value),
                                            literalDefault: true, example: kind.text(value),
                                            readText: { kind.text(try read($0)) }),
                           read: read)
    }

    /// With a default that is not a literal (`one per core`): help prints `described`, the
    /// command reads `compute()` — both from here.
    static func value<T>(_ names: [String], name: String, help: String, kind: ValueKind<T>,
                         computed described: String, _ compute: @escaping @Sendable () -> T) -> TypedOption<T> {
        let flag = names[0]
        let read: @Sendable (ParsedArguments) throws -> T = { args in
            guard let raw = args.raw(flag) else { return compute() }
            return try kind.parse(raw, flag)
        }
        return TypedOption(spec: OptionSpec(names: names, valueName: name, help: help, defaultDescription: described,
                                            example: kind.example, readText: { kind.text(try read($0)) }),
                           read: read)
    }

    /// Without a default: nil when absent (or, with `env`, the environment variable's value).
    /// `described` is shown as the default when the command does something particular without
    /// the flag (`in memory`).
    static func value<T>(_ names: [String], name: String, help: String, kind: ValueKind<T>,
                         env: String? = nil, described: String? = nil) -> TypedOption<T?> {
        let flag = names[0]
        let read: @Sendable (ParsedArguments) throws -> T? = { args in
            if let raw = args.raw(flag) { return try kind.parse(raw, flag) }
            if let env, let raw = ProcessInfo.processInfo.environment[env], !raw.isEmpty { return try kind.parse(raw, env) }
            return nil
        }
        return TypedOption(spec: OptionSpec(names: names, valueName: name, help: help, defaultDescription: described,
                                            example: kind.example, readText: { try read($0).map(kind.text) }, environment: env),
                           read: read)
    }

    /// Repeatable: every value given, in order; `default` when none is.
    static func values<T>(_ names: [String], name: String, help: String, kind: ValueKind<T>, default value: [T] = []) -> TypedOption<[T]> {
        let flag = names[0]
        let read: @Sendable (ParsedArguments) throws -> [T] = { args in
            let raw = args.rawAll(flag)
            return raw.isEmpty ? value : try raw.map { try kind.parse($0, flag) }
        }
        return TypedOption(spec: OptionSpec(names: names, valueName: name, help: help, repeatable: true,
                                            defaultDescription: value.isEmpty ? nil : value.map(kind.text).joined(separator: ", "),
                                            literalDefault: value.count == 1, example: value.first.map(kind.text) ?? kind.example,
                                            readText: { args in try read(args).map(kind.text).joined(separator: ", ") }),
                           read: read)
    }

    // Shorthands for the common kinds.

    static func string(_ names: String..., name: String, help: String, default value: String) -> TypedOption<String> {
        self.value(names, name: name, help: help, kind: .string, default: value)
    }
    static func string(_ names: String..., name: String, help: String, env: String? = nil, described: String? = nil) -> TypedOption<String?> {
        self.value(names, name: name, help: help, kind: .string, env: env, described: described)
    }
    static func strings(_ names: String..., name: String, help: String, default value: [String] = []) -> TypedOption<[String]> {
        values(names, name: name, help: help, kind: .string, default: value)
    }
    static func int(_ names: String..., name: String = "N", help: String, in range: ClosedRange<Int>, default value: Int) -> TypedOption<Int> {
        self.value(names, name: name, help: help, kind: .int(range), default: value)
    }
    static func int(_ names: String..., name: String = "N", help: String, in range: ClosedRange<Int>, described: String? = nil) -> TypedOption<Int?> {
        self.value(names, name: name, help: help, kind: .int(range), described: described)
    }
    static func double(_ names: String..., name: String = "X", help: String, in range: ClosedRange<Double>, default value: Double) -> TypedOption<Double> {
        self.value(names, name: name, help: help, kind: .double(range), default: value)
    }
    static func double(_ names: String..., name: String = "X", help: String, in range: ClosedRange<Double>, described: String? = nil) -> TypedOption<Double?> {
        self.value(names, name: name, help: help, kind: .double(range), described: described)
    }
    static func duration(_ names: String..., name: String = "DURATION", help: String, default value: Duration) -> TypedOption<Duration> {
        self.value(names, name: name, help: help, kind: .duration, default: value)
    }
    static func duration(_ names: String..., name: String = "DURATION", help: String, described: String? = nil) -> TypedOption<Duration?> {
        self.value(names, name: name, help: help, kind: .duration, described: described)
    }
    static func choice<E: RawRepresentable & CaseIterable & Sendable>(_ names: String..., name: String? = nil, help: String, default value: E) -> TypedOption<E> where E.RawValue == String {
        self.value(names, name: name ?? E.allCases.map(\.rawValue).joined(separator: "|"), help: help, kind: .choice(E.self), default: value)
    }
    static func choice<E: RawRepresentable & CaseIterable & Sendable>(_ names: String..., name: String? = nil, help: String, described: String? = nil) -> TypedOption<E?> where E.RawValue == String {
        self.value(names, name: name ?? E.allCases.map(\.rawValue).joined(separator: "|"), help: help, kind: .choice(E.self), described: described)
    }
    static func choice(_ names: String..., among words: [String], help: String, default value: String) -> TypedOption<String> {
        self.value(names, name: words.joined(separator: "|"), help: help, kind: .choice(words), default: value)
    }
    static func choice(_ names: String..., among words: [String], help: String, described: String? = nil) -> TypedOption<String?> {
        self.value(names, name: words.joined(separator: "|"), help: help, kind: .choice(words), described: described)
    }
}

/// Options every command accepts.
let helpFlag = Option.flag("--help", "-h", help: "Show this help.")
let commonOptions: [OptionSpec] = [helpFlag.spec]

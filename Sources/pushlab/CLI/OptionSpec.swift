import Foundation
import PushCore

// Options are declared once, with their type, parse rule, range and default (`Option.int(…)`,
// `Option.flag(…)`, …). The command reads the typed value through the declaration
// (`try args[Self.port]`); `--help`, the man page and the completions print the same
// declaration, so help and behaviour cannot drift (OptionDeclarationTests holds every command
// to it).

/// What the parser, `--help`, the man page and the completions know of a declared option.
protocol OptionDeclaration: Sendable {
    var spec: OptionSpec { get }
}

/// A declared option's names and help. `valueName == nil` makes it a flag.
struct OptionSpec: Sendable, OptionDeclaration {
    var names: [String]
    var valueName: String?
    var help: String
    var repeatable = false
    /// Shown in help as `(default: …)`: the text of the default value, or a described default
    /// (`one per core`) whose value the declaration computes.
    var defaultDescription: String?
    /// True when `defaultDescription` is the default value's own text (it parses back to it).
    var literalDefault = false
    /// A value the option accepts, for the declaration check.
    var example: String?
    /// Reads the option through its declaration and renders the value the way help prints a
    /// default (nil: no value). Used by the declaration check.
    var readText: (@Sendable (ParsedArguments) throws -> String?)?
    /// The environment variable read when the flag is absent.
    var environment: String?
    /// Set for a removed option: not shown anywhere; passing it fails with this error (exit 2).
    var removal: UsageError?

    var primary: String { names[0] }
    var spec: OptionSpec { self }
}

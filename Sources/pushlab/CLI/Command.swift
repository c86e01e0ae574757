import Foundation

/// One subcommand: its name, help and options are declared once; `--help` and the parser
/// are both generated from the declarations, so help never drifts from behaviour.
protocol Command: SendableMetatype {
    /// Words that select the command, e.g. `["send", "apns"]`.
    static var path: [String] { get }
    /// One line for `pushlab --help`.
    static var summary: String { get }
    /// Paragraphs shown under the usage line of `pushlab <command> --help`.
    static var discussion: String { get }
    /// Every option, declared once with its type and default (CLI/Options.swift).
    static var options: [any OptionDeclaration] { get }
    /// Positional arguments, for the usage line (e.g. `[payload.json …]`).
    static var positionalUsage: String { get }
    /// What the shell completes for the first positional argument (files unless said otherwise).
    static var positionalCompletion: PositionalCompletion { get }
    /// Runs the command and returns the exit status. Throw `UsageError` for bad input (exit 2).
    static func run(_ args: ParsedArguments) async throws -> Int32
}

extension Command {
    static var discussion: String { "" }
    /// The declarations' names and help, for the parser, `--help`, man pages and completions.
    static var optionSpecs: [OptionSpec] { options.map(\.spec) }
    /// The options `--help`, the man page and the completions show (removed ones are not).
    static var shownOptionSpecs: [OptionSpec] { optionSpecs.filter { $0.removal == nil } }
    static var positionalUsage: String { "" }
    static var positionalCompletion: PositionalCompletion { .files }
}

/// What a command's first positional argument is, for the shell completions.
enum PositionalCompletion: Equatable {
    case files
    /// One of these words (e.g. `relay keys create|list|revoke`).
    case words([String])
    /// A profile name, read from `pushlab profile list --names` as the user types.
    case profiles
}

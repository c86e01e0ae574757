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
    static var options: [OptionSpec] { get }
    /// Positional arguments, for the usage line (e.g. `[payload.json …]`).
    static var positionalUsage: String { get }
    /// Runs the command and returns the exit status. Throw `UsageError` for bad input (exit 2).
    static func run(_ args: ParsedArguments) async throws -> Int32
}

extension Command {
    static var discussion: String { "" }
    static var positionalUsage: String { "" }
}

/// Exit statuses shared by every command (architecture.md: conventions).
enum ExitStatus {
    static let success: Int32 = 0
    /// The push was rejected or the payload failed validation.
    static let failure: Int32 = 1
    /// Bad usage or unreadable input.
    static let usage: Int32 = 2
}

/// A usage or input error: names the flag, file or pointer and says how to fix it. Exit 2.
struct UsageError: Error, CustomStringConvertible {
    var message: String
    var fix: String?
    init(_ message: String, fix: String? = nil) {
        self.message = message
        self.fix = fix
    }
    var description: String { fix.map { "\(message)\n  fix: \($0)" } ?? message }
}

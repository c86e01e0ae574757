import Foundation
import PushCore

/// `pushlab push show`.
enum PushShowCommand: Command {
    static let path = ["push", "show"]
    static let summary = "Print a saved push."
    static let positionalUsage = "NAME"
    static let options: [any OptionDeclaration] = [PushCommandOptions.config]

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        guard args.positionals.count == 1 else { throw UsageError("name the saved push", fix: "see 'pushlab push list'") }
        let file = try SavedPushes(configPath: try args[PushCommandOptions.config]).path(of: args.positionals[0])
        writeOutput(try readInput(file))
        return ExitStatus.success
    }
}

import Foundation
import PushCore

/// `pushlab push remove`.
enum PushRemoveCommand: Command {
    static let path = ["push", "remove"]
    static let summary = "Remove a saved push."
    static let positionalUsage = "NAME"
    static let options: [any OptionDeclaration] = [PushCommandOptions.config]

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        guard args.positionals.count == 1 else { throw UsageError("name the saved push", fix: "see 'pushlab push list'") }
        try SavedPushes(configPath: try args[PushCommandOptions.config]).remove(args.positionals[0])
        print("removed saved push \(args.positionals[0])")
        return ExitStatus.success
    }
}

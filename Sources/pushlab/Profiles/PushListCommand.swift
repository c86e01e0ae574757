import Foundation
import PushCore

/// `pushlab push list`.
enum PushListCommand: Command {
    static let path = ["push", "list"]
    static let summary = "List the saved pushes."
    static let options: [any OptionDeclaration] = [PushCommandOptions.json, PushCommandOptions.config]

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        let pushes = SavedPushes(configPath: try args[PushCommandOptions.config])
        let names = try pushes.list()
        if args[PushCommandOptions.json] {
            struct Row: Encodable { var name: String; var file: String }
            print(try renderJSON(names.map { Row(name: $0, file: pushes.directory + "/\($0).json") }))
        } else if names.isEmpty {
            print("no saved pushes in \(pushes.directory): save one with 'pushlab push save NAME payload.json'")
        } else {
            for n in names { print(n) }
        }
        return ExitStatus.success
    }
}

import Foundation

/// `pushlab profile remove`.
enum ProfileRemoveCommand: Command {
    static let path = ["profile", "remove"]
    static let summary = "Remove a profile (its key files are left where they are)."
    static let positionalCompletion = PositionalCompletion.profiles
    static let positionalUsage = "NAME"
    static let options: [any OptionDeclaration] = [ProfileCommandOptions.config]

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        guard args.positionals.count == 1 else { throw UsageError("name the profile to remove") }
        let path = try args[ProfileCommandOptions.config]
        var config = try UserConfig.load(path)
        guard let (name, _) = try config.profile(named: args.positionals[0]) else { return ExitStatus.usage }
        config.profiles[name] = nil
        if config.current == name { config.current = nil }
        try config.save(path)
        print("removed profile \(name)")
        return ExitStatus.success
    }
}

import Foundation

/// `pushlab profile use`.
enum ProfileUseCommand: Command {
    static let path = ["profile", "use"]
    static let summary = "Make a profile the current one (used by send when no --profile is given)."
    static let positionalUsage = "NAME"
    static let options: [any OptionDeclaration] = [ProfileCommandOptions.config]

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        guard args.positionals.count == 1 else { throw UsageError("name the profile to use") }
        let path = try args[ProfileCommandOptions.config]
        var config = try UserConfig.load(path)
        guard let (name, _) = try config.profile(named: args.positionals[0]) else { return ExitStatus.usage }
        config.current = name
        try config.save(path)
        print("current profile: \(name)")
        return ExitStatus.success
    }
}

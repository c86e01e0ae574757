import Foundation

/// `pushlab profile use NAME`, or `--none` to have no current profile.
enum ProfileUseCommand: Command {
    static let path = ["profile", "use"]
    static let summary = "Make a profile the current one (used by send when no --profile is given), or --none to clear it."
    static let positionalCompletion = PositionalCompletion.profiles
    static let positionalUsage = "NAME"
    static let none = Option.flag("--none", help: "Clear the current profile: send uses flags and environment variables only (the profiles stay).")
    static let options: [any OptionDeclaration] = [none, ProfileCommandOptions.config]

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        let path = try args[ProfileCommandOptions.config]
        var config = try UserConfig.load(path)
        if args[none] {
            guard args.positionals.isEmpty else { throw UsageError("give a profile name or --none, not both", fix: "pushlab profile use NAME, or pushlab profile use --none") }
            let previous = config.current
            config.current = nil
            try config.save(path)
            print(previous.map { "no current profile (was \($0))" } ?? "no current profile")
            return ExitStatus.success
        }
        guard args.positionals.count == 1 else {
            throw UsageError("name the profile to use", fix: "pushlab profile use NAME (pushlab profile list shows them), or --none to clear the current one")
        }
        guard let (name, _) = try config.profile(named: args.positionals[0]) else { return ExitStatus.usage }
        config.current = name
        try config.save(path)
        print("current profile: \(name)")
        return ExitStatus.success
    }
}

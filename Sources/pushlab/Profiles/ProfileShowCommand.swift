import Foundation

/// `pushlab profile show`: a profile's settings (paths, never key material).
enum ProfileShowCommand: Command {
    static let path = ["profile", "show"]
    static let summary = "Show a profile's settings (file paths, never key material)."
    static let positionalCompletion = PositionalCompletion.profiles
    static let positionalUsage = "[NAME]"
    static let options: [any OptionDeclaration] = [ProfileCommandOptions.json, ProfileCommandOptions.config]

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        let config = try UserConfig.load(try args[ProfileCommandOptions.config])
        guard let (name, profile) = try config.profile(named: args.positionals.first) else {
            throw UsageError("no current profile", fix: "name one, or choose one with 'pushlab profile use NAME'")
        }
        if args[ProfileCommandOptions.json] {
            print(try renderJSON(profile))
            return ExitStatus.success
        }
        print("profile \(name)\(config.current == name ? " (current)" : "")")
        if let a = profile.apns {
            print("  APNs key:        \(a.key)\n  key id:          \(a.keyID ?? "from the file name")\n  team id:         \(a.teamID)")
            print("  bundle id:       \(a.bundleID)\n  server:          \(a.url ?? a.environment)")
        }
        if let f = profile.fcm {
            print("  service account: \(f.serviceAccount)\n  project:         \(f.project ?? "from the service account")")
            if let u = f.url { print("  FCM server:      \(u)") }
        }
        if let ca = profile.apns?.caFile ?? profile.fcm?.caFile { print("  CA file:         \(ca)") }
        return ExitStatus.success
    }
}

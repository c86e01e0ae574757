import Foundation

/// The `--config` option of the profile and push commands.
private let configOption = OptionSpec.value("--config", name: "FILE", help: "pushlab's config file (or PUSHLAB_CONFIG).",
                                            default: "~/.config/pushlab/config.json")

/// `pushlab profile add`: stores an app's credentials (paths) and environment under a name.
enum ProfileAddCommand: Command {
    static let path = ["profile", "add"]
    static let summary = "Add or replace a profile: an app's APNs key and/or FCM service account, and its environment."
    static let positionalUsage = "NAME"
    static let discussion = """
        A profile keeps file paths, never key material. `pushlab send apns|fcm --profile NAME` \
        (or the current profile, see 'pushlab profile use') fills the credential, topic and \
        environment flags you leave out; flags you give win, then the profile, then the APNS_* / \
        GOOGLE_APPLICATION_CREDENTIALS environment variables. Paths are stored absolute.

          pushlab profile add myapp-dev --key AuthKey_ABC123DEFG.p8 --team-id DEF123GHIJ \\
              --bundle-id com.example.app --sandbox --use
        """
    static let options: [OptionSpec] = APNsCredentialFlags.options(environment: false) + [
        .value("--bundle-id", name: "BUNDLE", help: "The app's bundle id (the APNs topic)."),
        .flag("--sandbox", help: "APNs sandbox (development builds)."),
        .flag("--production", help: "APNs production (the default)."),
        .value("--url", name: "URL", help: "An APNs-speaking server instead of Apple's (e.g. the emulator)."),
        .value("--service-account", name: "JSON", help: "FCM service-account key file."),
        .value("--project", name: "ID", help: "Firebase project id (default: the service account's)."),
        .value("--fcm-url", name: "URL", help: "An FCM-speaking server instead of Google's (e.g. the emulator)."),
        .value("--ca-file", name: "PEM", help: "Trust this CA for the profile's servers (e.g. the emulator's dev CA)."),
        .flag("--use", help: "Make it the current profile."),
        configOption,
    ]

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        guard args.positionals.count == 1, let name = args.positionals.first else {
            throw UsageError("name the profile", fix: "e.g. pushlab profile add myapp-dev --key AuthKey_X.p8 …")
        }
        try SavedPushes.checkName(name)
        let configPath = UserConfig.path(args.value("--config"))
        var config = try UserConfig.load(configPath)
        var profile = UserConfig.Profile()
        let caFile = try args.value("--ca-file").map { try existingFile($0, flag: "--ca-file") }
        if let key = args.value("--key") {
            let keyPath = try existingFile(key, flag: "--key")
            guard let team = args.value("--team-id") else { throw UsageError("--key needs --team-id", fix: "your 10-character team id (developer account, Membership)") }
            guard let bundle = args.value("--bundle-id") else { throw UsageError("--key needs --bundle-id", fix: "the app's bundle id, e.g. com.example.app") }
            if args.flag("--sandbox") && args.flag("--production") { throw UsageError("give --sandbox or --production, not both") }
            KeyFilePermissions.warnIfShared(keyPath, flag: "--key")
            profile.apns = .init(key: keyPath, keyID: args.value("--key-id"), teamID: team, bundleID: bundle,
                                 environment: args.flag("--sandbox") ? "sandbox" : "production",
                                 url: args.value("--url"), caFile: caFile)
        } else {
            for flag in ["--key-id", "--team-id", "--bundle-id", "--url"] where args.value(flag) != nil {
                throw UsageError("\(flag) needs --key", fix: "add --key AuthKey_<KEYID>.p8, or drop \(flag)")
            }
        }
        if let account = args.value("--service-account") {
            let accountPath = try existingFile(account, flag: "--service-account")
            KeyFilePermissions.warnIfShared(accountPath, flag: "--service-account")
            profile.fcm = .init(serviceAccount: accountPath, project: args.value("--project"), url: args.value("--fcm-url"), caFile: caFile)
        } else if args.value("--project") != nil || args.value("--fcm-url") != nil {
            throw UsageError("--project and --fcm-url need --service-account", fix: "add --service-account sa.json")
        }
        guard profile.apns != nil || profile.fcm != nil else {
            throw UsageError("a profile needs --key (APNs) or --service-account (FCM), or both", fix: "see 'pushlab profile add --help'")
        }
        let replaced = config.profiles[name] != nil
        config.profiles[name] = profile
        if args.flag("--use") || config.current == nil { config.current = name }
        try config.save(configPath)
        print("\(replaced ? "replaced" : "added") profile \(name)\(config.current == name ? " (current)" : "") in \(configPath)")
        return ExitStatus.success
    }

    private static func existingFile(_ path: String, flag: String) throws -> String {
        let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
        guard FileManager.default.isReadableFile(atPath: absolute) else {
            throw UsageError("\(flag) \(path): cannot read the file", fix: "check the path")
        }
        return absolute
    }
}

/// `pushlab profile list`.
enum ProfileListCommand: Command {
    static let path = ["profile", "list"]
    static let summary = "List the profiles; the current one is marked with *."
    static let options: [OptionSpec] = [.flag("--json", help: "Print JSON."), configOption]

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        let config = try UserConfig.load(UserConfig.path(args.value("--config")))
        let names = config.profiles.keys.sorted()
        if args.flag("--json") {
            struct Row: Encodable { var name: String; var current: Bool; var apns: Bool; var fcm: Bool }
            print(try renderJSON(names.map { n in
                Row(name: n, current: config.current == n, apns: config.profiles[n]!.apns != nil, fcm: config.profiles[n]!.fcm != nil)
            }))
            return ExitStatus.success
        }
        if names.isEmpty { print("no profiles yet: add one with 'pushlab profile add NAME …'"); return ExitStatus.success }
        for n in names {
            let p = config.profiles[n]!
            var what: [String] = []
            if let a = p.apns { what.append("APNs \(a.bundleID) \(a.url ?? a.environment)") }
            if let f = p.fcm { what.append("FCM \(f.project ?? "project from the service account")") }
            print("\(config.current == n ? "*" : " ") \(n)  \(what.joined(separator: "; "))")
        }
        return ExitStatus.success
    }
}

/// `pushlab profile show`: a profile's settings (paths, never key material).
enum ProfileShowCommand: Command {
    static let path = ["profile", "show"]
    static let summary = "Show a profile's settings (file paths, never key material)."
    static let positionalUsage = "[NAME]"
    static let options: [OptionSpec] = [.flag("--json", help: "Print JSON."), configOption]

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        let config = try UserConfig.load(UserConfig.path(args.value("--config")))
        guard let (name, profile) = try config.profile(named: args.positionals.first) else {
            throw UsageError("no current profile", fix: "name one, or choose one with 'pushlab profile use NAME'")
        }
        if args.flag("--json") {
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

/// `pushlab profile remove`.
enum ProfileRemoveCommand: Command {
    static let path = ["profile", "remove"]
    static let summary = "Remove a profile (its key files are left where they are)."
    static let positionalUsage = "NAME"
    static let options: [OptionSpec] = [configOption]

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        guard args.positionals.count == 1 else { throw UsageError("name the profile to remove") }
        let path = UserConfig.path(args.value("--config"))
        var config = try UserConfig.load(path)
        guard let (name, _) = try config.profile(named: args.positionals[0]) else { return ExitStatus.usage }
        config.profiles[name] = nil
        if config.current == name { config.current = nil }
        try config.save(path)
        print("removed profile \(name)")
        return ExitStatus.success
    }
}

/// `pushlab profile use`.
enum ProfileUseCommand: Command {
    static let path = ["profile", "use"]
    static let summary = "Make a profile the current one (used by send when no --profile is given)."
    static let positionalUsage = "NAME"
    static let options: [OptionSpec] = [configOption]

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        guard args.positionals.count == 1 else { throw UsageError("name the profile to use") }
        let path = UserConfig.path(args.value("--config"))
        var config = try UserConfig.load(path)
        guard let (name, _) = try config.profile(named: args.positionals[0]) else { return ExitStatus.usage }
        config.current = name
        try config.save(path)
        print("current profile: \(name)")
        return ExitStatus.success
    }
}

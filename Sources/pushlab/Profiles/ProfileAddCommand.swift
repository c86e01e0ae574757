import Foundation

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
    static let credentials = APNsCredentialFlags.flagsOnly
    static let bundleID = Option.string("--bundle-id", name: "BUNDLE", help: "The app's bundle id (the APNs topic).")
    static let sandbox = Option.flag("--sandbox", help: "APNs sandbox (development builds).")
    static let production = Option.flag("--production", help: "APNs production (the default).")
    static let url = Option.string("--url", name: "URL", help: "An APNs-speaking server instead of Apple's (e.g. the emulator).")
    static let serviceAccount = Option.string("--service-account", name: "JSON", help: "FCM service-account key file.")
    static let project = Option.string("--project", name: "ID", help: "Firebase project id (default: the service account's).")
    static let fcmURL = Option.string("--fcm-url", name: "URL", help: "An FCM-speaking server instead of Google's (e.g. the emulator).")
    static let caFile = Option.string("--ca-file", name: "PEM", help: "Trust this CA for the profile's servers (e.g. the emulator's dev CA).")
    static let use = Option.flag("--use", help: "Make it the current profile.")
    static let options: [any OptionDeclaration] = credentials.options + [
        bundleID, sandbox, production, url, serviceAccount, project, fcmURL, caFile, use,
        ProfileCommandOptions.config,
    ]

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        guard args.positionals.count == 1, let name = args.positionals.first else {
            throw UsageError("name the profile", fix: "e.g. pushlab profile add myapp-dev --key AuthKey_X.p8 …")
        }
        try SavedPushes.checkName(name)
        let configPath = try args[ProfileCommandOptions.config]
        var config = try UserConfig.load(configPath)
        var profile = UserConfig.Profile()
        let caFile = try args[Self.caFile].map { try existingFile($0, flag: "--ca-file") }
        if let key = try args[credentials.key] {
            let keyPath = try existingFile(key, flag: "--key")
            guard let team = try args[credentials.teamID] else { throw UsageError("--key needs --team-id", fix: "your 10-character team id (developer account, Membership)") }
            guard let bundle = try args[bundleID] else { throw UsageError("--key needs --bundle-id", fix: "the app's bundle id, e.g. com.example.app") }
            if args[sandbox] && args[production] { throw UsageError("give --sandbox or --production, not both") }
            KeyFilePermissions.warnIfShared(keyPath, flag: "--key")
            profile.apns = .init(key: keyPath, keyID: try args[credentials.keyID], teamID: team, bundleID: bundle,
                                 environment: args[sandbox] ? "sandbox" : "production",
                                 url: try args[url], caFile: caFile)
        } else {
            for flag in [credentials.keyID, credentials.teamID, bundleID, url].filter({ args.isGiven($0) }).map(\.spec.primary) {
                throw UsageError("\(flag) needs --key", fix: "add --key AuthKey_<KEYID>.p8, or drop \(flag)")
            }
        }
        if let account = try args[serviceAccount] {
            let accountPath = try existingFile(account, flag: "--service-account")
            KeyFilePermissions.warnIfShared(accountPath, flag: "--service-account")
            profile.fcm = .init(serviceAccount: accountPath, project: try args[project], url: try args[fcmURL], caFile: caFile)
        } else if args.isGiven(project) || args.isGiven(fcmURL) {
            throw UsageError("--project and --fcm-url need --service-account", fix: "add --service-account sa.json")
        }
        guard profile.apns != nil || profile.fcm != nil else {
            throw UsageError("a profile needs --key (APNs) or --service-account (FCM), or both", fix: "see 'pushlab profile add --help'")
        }
        let replaced = config.profiles[name] != nil
        config.profiles[name] = profile
        if args[use] || config.current == nil { config.current = name }
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

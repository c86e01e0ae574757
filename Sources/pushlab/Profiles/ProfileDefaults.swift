import Foundation

/// Fills a send command's missing flags from a profile and a saved push. Precedence: a flag given
/// on the command line wins, then the profile, then the environment variables the command reads
/// itself (APNS_*, GOOGLE_APPLICATION_CREDENTIALS) — filling happens before those are consulted.
enum ProfileDefaults {
    /// The commands whose flags a profile fills before they run (doctor applies it itself).
    static let commands: [[String]] = [["send", "apns"], ["send", "fcm"]]

    /// Options every command that takes a profile declares.
    static let profile = Option.string("--profile", name: "NAME", help: "Take credentials and environment from this profile (default: the current one; see 'pushlab profile').")
    static let push = Option.string("--push", name: "NAME", help: "Send this saved push (see 'pushlab push list') instead of a payload file.")
    static let config = UserConfig.option(help: "pushlab's config file (or PUSHLAB_CONFIG).")
    static let options: [any OptionDeclaration] = [profile, push, config]

    static func apply(to args: inout ParsedArguments, command: [String]) throws {
        let configPath = try args[config]
        if let saved = try args[push] {
            guard args.positionals.isEmpty else {
                throw UsageError("--push \(saved) and a payload file \(args.positionals[0]) both given", fix: "give one of them")
            }
            args.positionals = [try SavedPushes(configPath: configPath).path(of: saved)]
        }
        let config = try UserConfig.load(configPath)
        // An explicit --profile must exist; no current profile simply means nothing to fill.
        let explicit = try args[profile]
        guard let (name, profile) = try config.profile(named: explicit) else { return }
        switch command {
        case ["send", "apns"]:
            guard let apns = profile.apns else {
                if explicit != nil { throw UsageError("profile '\(name)' has no APNs credentials", fix: "add them with 'pushlab profile add \(name) --key …'") }
                return
            }
            fillAPNs(&args, apns)
        case ["send", "fcm"]:
            guard let fcm = profile.fcm else {
                if explicit != nil { throw UsageError("profile '\(name)' has no FCM service account", fix: "add one with 'pushlab profile add \(name) --service-account …'") }
                return
            }
            fillFCM(&args, fcm)
            fill(&args, "--url", fcm.url)
        default:
            // doctor: whatever the profile has; its --url is APNs's, the FCM server is its own flag.
            if let apns = profile.apns { fillAPNs(&args, apns) }
            if let fcm = profile.fcm { fillFCM(&args, fcm); fill(&args, "--fcm-url", fcm.url) }
        }
    }

    private static func fillAPNs(_ args: inout ParsedArguments, _ apns: UserConfig.APNs) {
        if !args.isGiven(APNsCertificateFlags.cert) {  // a certificate on the command line replaces the profile's key
            fill(&args, "--key", apns.key)
            fill(&args, "--key-id", apns.keyID)
            fill(&args, "--team-id", apns.teamID)
        }
        fill(&args, "--topic", apns.bundleID)
        fill(&args, "--ca-file", apns.caFile)
        if !args.rawFlag("--sandbox"), !args.rawFlag("--production"), args.raw("--url") == nil {
            if let url = apns.url { args.append("--url", url) }
            else if apns.environment == "sandbox" { args.setFlag("--sandbox") }
            else { args.setFlag("--production") }
        }
    }

    private static func fillFCM(_ args: inout ParsedArguments, _ fcm: UserConfig.FCM) {
        fill(&args, "--service-account", fcm.serviceAccount)
        fill(&args, "--project", fcm.project)
        fill(&args, "--ca-file", fcm.caFile)
    }

    private static func fill(_ args: inout ParsedArguments, _ name: String, _ value: String?) {
        if args.raw(name) == nil, let value { args.append(name, value) }
    }
}

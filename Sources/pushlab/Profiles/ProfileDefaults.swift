import Foundation

/// Fills a send command's missing flags from a profile and a saved push. Precedence: a flag given
/// on the command line wins, then the profile, then the environment variables the command reads
/// itself (APNS_*, GOOGLE_APPLICATION_CREDENTIALS) — filling happens before those are consulted.
enum ProfileDefaults {
    /// The options of one command a profile fills, by their declarations (never by name).
    struct Targets: Sendable {
        struct APNs: Sendable {
            var credentials: APNsCredentialFlags
            var topic, caFile, url: any OptionDeclaration
            var sandbox, production: Flag
        }
        struct FCM: Sendable {
            var serviceAccount, project, caFile, url: any OptionDeclaration
        }
        var apns: APNs?
        var fcm: FCM?
        /// True for `send apns` / `send fcm`: an explicit profile without that service is an error.
        var requiresService: Bool
    }

    static let sendAPNs = Targets(
        apns: .init(credentials: SendAPNsCommand.credentials, topic: SendAPNsCommand.topic, caFile: SendSupport.caFileOption,
                    url: SendAPNsCommand.url, sandbox: SendAPNsCommand.sandbox, production: SendAPNsCommand.production),
        fcm: nil, requiresService: true)
    static let sendFCM = Targets(
        apns: nil,
        fcm: .init(serviceAccount: SendFCMCommand.serviceAccount, project: SendFCMCommand.project, caFile: SendSupport.caFileOption,
                   url: SendFCMCommand.url),
        requiresService: true)
    /// doctor: whatever the profile has; its --url is APNs's, the FCM server is its own flag.
    static let doctor = Targets(
        apns: .init(credentials: DoctorCommand.credentials, topic: DoctorCommand.topic, caFile: DoctorCommand.caFile,
                    url: DoctorCommand.url, sandbox: DoctorCommand.sandbox, production: DoctorCommand.production),
        fcm: .init(serviceAccount: DoctorCommand.serviceAccount, project: DoctorCommand.project, caFile: DoctorCommand.caFile,
                   url: DoctorCommand.fcmURL),
        requiresService: false)

    /// The commands whose flags a profile fills before they run (doctor applies it itself).
    static let commands: [[String]: Targets] = [SendAPNsCommand.path: sendAPNs, SendFCMCommand.path: sendFCM]

    /// Options every command that takes a profile declares.
    static let profile = Option.string("--profile", name: "NAME", help: "Take credentials and environment from this profile (default: the current one; see 'pushlab profile').")
    static let push = Option.string("--push", name: "NAME", help: "Send this saved push (see 'pushlab push list') instead of a payload file.")
    static let config = UserConfig.option(help: "pushlab's config file (or PUSHLAB_CONFIG).")
    static let options: [any OptionDeclaration] = [profile, push, config]

    static func apply(to args: inout ParsedArguments, _ targets: Targets) throws {
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
        if let apnsTargets = targets.apns {
            if let apns = profile.apns {
                fillAPNs(&args, apns, apnsTargets)
            } else if targets.requiresService, explicit != nil {
                throw UsageError("profile '\(name)' has no APNs credentials", fix: "add them with 'pushlab profile add \(name) --key …'")
            }
        }
        if let fcmTargets = targets.fcm {
            if let fcm = profile.fcm {
                fillFCM(&args, fcm, fcmTargets)
            } else if targets.requiresService, explicit != nil {
                throw UsageError("profile '\(name)' has no FCM service account", fix: "add one with 'pushlab profile add \(name) --service-account …'")
            }
        }
    }

    private static func fillAPNs(_ args: inout ParsedArguments, _ apns: UserConfig.APNs, _ to: Targets.APNs) {
        if !args.isGiven(APNsCertificateFlags.cert) {  // a certificate on the command line replaces the profile's key
            args.fill(to.credentials.key, apns.key)
            args.fill(to.credentials.keyID, apns.keyID)
            args.fill(to.credentials.teamID, apns.teamID)
        }
        args.fill(to.topic, apns.bundleID)
        args.fill(to.caFile, apns.caFile)
        if !args.isGiven(to.sandbox), !args.isGiven(to.production), !args.isGiven(to.url) {
            if let url = apns.url { args.fill(to.url, url) }
            else if apns.environment == "sandbox" { args.setFlag(to.sandbox) }
            else { args.setFlag(to.production) }
        }
    }

    private static func fillFCM(_ args: inout ParsedArguments, _ fcm: UserConfig.FCM, _ to: Targets.FCM) {
        args.fill(to.serviceAccount, fcm.serviceAccount)
        args.fill(to.project, fcm.project)
        args.fill(to.caFile, fcm.caFile)
        args.fill(to.url, fcm.url)
    }
}

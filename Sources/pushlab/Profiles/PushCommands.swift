import Foundation
import PushCore

private let configOption = OptionSpec.value("--config", name: "FILE", help: "pushlab's config file (or PUSHLAB_CONFIG); pushes live in pushes/ beside it.",
                                            default: "~/.config/pushlab/config.json")

/// `pushlab push save`: keeps a payload under a name for `send apns|fcm --push NAME`.
enum PushSaveCommand: Command {
    static let path = ["push", "save"]
    static let summary = "Save a payload (APNs) or message (FCM) under a name, for send --push NAME."
    static let positionalUsage = "NAME payload.json|-"
    static let discussion = """
        The payload is validated first (as 'pushlab validate' does) and saved as NAME.json in the \
        pushes/ folder beside the config, an ordinary file a team can keep in git. Warnings are \
        printed; errors refuse the save (exit 1) unless --force.

          pushlab payload --title "Welcome" --body "Thanks for joining" | pushlab push save welcome -
          pushlab send apns --push welcome --token 3a5f…
        """
    static let options: [OptionSpec] = [
        .flag("--force", help: "Save even when the payload has errors, or replace a saved push of that name."),
        configOption,
    ]

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        guard args.positionals.count == 2 else {
            throw UsageError("give a name and a payload file", fix: "e.g. pushlab push save welcome payload.json (or - for stdin)")
        }
        let (name, source) = (args.positionals[0], args.positionals[1])
        try SavedPushes.checkName(name)
        let bytes = try readInput(source, what: "payload file")
        let report = Validator().validate(bytes: bytes, as: nil)
        for f in report.warnings { printError("pushlab push save: warning: \(source) \(f.place): \(f.message)") }
        if !report.errors.isEmpty {
            for f in report.errors { printError("pushlab push save: \(source) \(f.place): \(f.message)\n  fix: \(f.fix)") }
            guard args.flag("--force") else {
                printError("pushlab push save: not saved (\(report.errors.count) error(s)); --force saves it anyway")
                return ExitStatus.failure
            }
        }
        let pushes = SavedPushes(configPath: UserConfig.path(args.value("--config")))
        let file = try pushes.save(name, bytes: bytes, replace: args.flag("--force"))
        print("saved push \(name) (\(report.format == .fcm ? "FCM message" : "APNs payload")) to \(file)")
        return ExitStatus.success
    }
}

/// `pushlab push list`.
enum PushListCommand: Command {
    static let path = ["push", "list"]
    static let summary = "List the saved pushes."
    static let options: [OptionSpec] = [.flag("--json", help: "Print JSON."), configOption]

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        let pushes = SavedPushes(configPath: UserConfig.path(args.value("--config")))
        let names = try pushes.list()
        if args.flag("--json") {
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

/// `pushlab push show`.
enum PushShowCommand: Command {
    static let path = ["push", "show"]
    static let summary = "Print a saved push."
    static let positionalUsage = "NAME"
    static let options: [OptionSpec] = [configOption]

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        guard args.positionals.count == 1 else { throw UsageError("name the saved push", fix: "see 'pushlab push list'") }
        let file = try SavedPushes(configPath: UserConfig.path(args.value("--config"))).path(of: args.positionals[0])
        FileHandle.standardOutput.write(Data(try readInput(file)))
        return ExitStatus.success
    }
}

/// `pushlab push remove`.
enum PushRemoveCommand: Command {
    static let path = ["push", "remove"]
    static let summary = "Remove a saved push."
    static let positionalUsage = "NAME"
    static let options: [OptionSpec] = [configOption]

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        guard args.positionals.count == 1 else { throw UsageError("name the saved push", fix: "see 'pushlab push list'") }
        try SavedPushes(configPath: UserConfig.path(args.value("--config"))).remove(args.positionals[0])
        print("removed saved push \(args.positionals[0])")
        return ExitStatus.success
    }
}

import Foundation
import PushCore

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
    static let force = Option.flag("--force", help: "Save even when the payload has errors, or replace a saved push of that name.")
    static let options: [any OptionDeclaration] = [force, PushCommandOptions.config]

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        guard args.positionals.count == 2 else {
            throw UsageError("give a name and a payload file", fix: "e.g. pushlab push save welcome payload.json (or - for stdin)")
        }
        let (name, source) = (args.positionals[0], args.positionals[1])
        try SavedPushes.checkName(name)
        let bytes = try readInput(source, what: "payload file")
        let report = Validator().validate(bytes: bytes, as: nil)
        for f in report.warnings { printError("pushlab push save: warning: \(source) \(f.place): \(f.message)") }
        if report.unparsable, !args[force] {
            // Not JSON at all: unreadable input (2), as in validate and send.
            let f = report.findings[0]
            throw UsageError("\(source)\(f.location.map { ":\($0.line):\($0.column)" } ?? ""): not valid JSON: \(f.message)", fix: f.fix)
        }
        if !report.errors.isEmpty {
            for f in report.errors { printError("pushlab push save: \(source) \(f.place): \(f.message)\n  fix: \(f.fix)") }
            guard args[force] else {
                printError("pushlab push save: not saved (\(report.errors.count) error(s)); --force saves it anyway")
                return ExitStatus.failure
            }
        }
        let pushes = SavedPushes(configPath: try args[PushCommandOptions.config])
        let file = try pushes.save(name, bytes: bytes, replace: args[force])
        print("saved push \(name) (\(report.format == .fcm ? "FCM message" : "APNs payload")) to \(file)")
        return ExitStatus.success
    }
}

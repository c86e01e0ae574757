import Foundation
import PushDevice

/// `pushlab retainza check`: what a Retainza app profile's integration gets wrong.
enum RetainzaCheckCommand: Command {
    static let path = ["retainza", "check"]
    static let summary = "Check a Retainza app profile: the key, the base URL, storage and every integration call, each finding with its fix."
    static let discussion = """
    Reads an app profile with "sdkMode": "retainza" (sample payloads/apps/retainza-demo.json)
    and lists what the Retainza iOS SDK's troubleshooting table would find: an sk_ key (start
    throws .configuration), a base URL without /v1, the deprecated handleDeviceToken, a missing
    Messaging.apnsToken / handleFCMToken / handleOpen / handleLaunchOptions / handleForeground /
    handleBackground, no user when the token arrives, memory-only storage, no sessions, consent
    required but never set. See docs/retainza.md.
    Exit status: 1 when a finding is an error, 2 when the profile cannot be read.
    """
    static let app = Option.value(["--app"], name: "FILE", help: "The Retainza app profile.", kind: .string,
                                  computed: "payloads/apps/retainza-demo.json") { ProjectFiles.defaultFile("payloads/apps/retainza-demo.json") }
    static let json = Option.flag("--json", help: "Print the findings as JSON.")
    static let options: [any OptionDeclaration] = [app, json]

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        guard args.positionals.isEmpty else { throw UsageError("unexpected argument '\(args.positionals[0])'", fix: "pass the profile with --app FILE") }
        let path = try args[app]
        let profile = try RetainzaInputs.profile(path)
        let findings = RetainzaFinding.audit(profile)
        let failed = findings.contains { $0.severity == .error }
        if args[json] {
            struct Output: Encodable { var app: String; var passed: Bool; var findings: [RetainzaFinding] }
            emit(try renderJSON(Output(app: path, passed: !failed, findings: findings)))
        } else {
            var out = "retainza check: \(path) (\(profile.bundleID))\n"
            for f in findings {
                out += "\(f.severity.rawValue): \(f.code): \(f.symptom)\n"
                if f.severity != .info { out += "  fix: \(f.fix)\n" }
            }
            out += failed ? "integration has errors\n" : "integration ok\n"
            writeOutput(out)
        }
        return failed ? ExitStatus.failure : ExitStatus.success
    }
}

enum RetainzaInputs {
    /// The profile given to `flag` (`--app`, simulate's `--retainza-app`), its errors pointing at
    /// the Retainza sample and docs rather than the Customer.io ones AppProfileError names.
    static func profile(_ path: String, flag: String = "--app") throws -> RetainzaAppProfile {
        do { return try RetainzaAppProfile.load(path: path) } catch {
            throw UsageError("\(flag) \(error.reason)", fix: error.fix.replacingOccurrences(of: "docs/device.md", with: "docs/retainza.md")
                .replacingOccurrences(of: "payloads/apps/demo.json", with: "payloads/apps/retainza-demo.json")
                .replacingOccurrences(of: "given to --app", with: "given to \(flag)"))
        }
    }
}

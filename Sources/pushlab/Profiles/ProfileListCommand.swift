import Foundation

/// `pushlab profile list`.
enum ProfileListCommand: Command {
    static let path = ["profile", "list"]
    static let summary = "List the profiles; the current one is marked with *."
    static let names = Option.flag("--names", help: "Print the profile names only, one per line (scripts, shell completion).")
    static let options: [any OptionDeclaration] = [names, ProfileCommandOptions.json, ProfileCommandOptions.config]

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        let config = try UserConfig.load(try args[ProfileCommandOptions.config])
        let names = config.profiles.keys.sorted()
        if args[Self.names] {
            for n in names { print(n) }
            return ExitStatus.success
        }
        if args[ProfileCommandOptions.json] {
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

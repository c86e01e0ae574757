/// The `.p8` credential flags every command that signs APNs provider tokens declares
/// (`send apns`, `channels`, `doctor`, `profile add`): declared once, so their `--help`,
/// completions and man pages say the same thing.
enum APNsCredentialFlags {
    /// `--key`, `--key-id`, `--team-id`; with `environment`, the help names the variables the
    /// command also reads (APNS_KEY_PATH, APNS_KEY_ID, APNS_TEAM_ID).
    static func options(environment: Bool) -> [OptionSpec] {
        func env(_ name: String) -> String { environment ? " (or \(name))" : "" }
        return [
            .value("--key", name: "P8", help: "APNs auth key file AuthKey_<KEYID>.p8\(env("APNS_KEY_PATH"))."),
            .value("--key-id", name: "ID", help: "10-character key id\(environment ? " (or APNS_KEY_ID; default: from the file name)" : " (default: from the file name)")."),
            .value("--team-id", name: "ID", help: "10-character team id\(env("APNS_TEAM_ID"))."),
        ]
    }
}

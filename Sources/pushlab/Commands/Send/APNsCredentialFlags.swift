/// The `.p8` credential flags every command that signs APNs provider tokens declares
/// (`send apns`, `channels`, `doctor`, `profile add`): declared once, so their `--help`,
/// completions and man pages say the same thing.
struct APNsCredentialFlags: Sendable {
    let key: TypedOption<String?>
    let keyID: TypedOption<String?>
    let teamID: TypedOption<String?>

    /// With the environment: the commands that also read APNS_KEY_PATH, APNS_KEY_ID and
    /// APNS_TEAM_ID (`send apns`, `channels`, `doctor`).
    static let withEnvironment = APNsCredentialFlags(environment: true)
    /// Flags only (`profile add`).
    static let flagsOnly = APNsCredentialFlags(environment: false)

    private init(environment: Bool) {
        func env(_ name: String) -> String? { environment ? name : nil }
        func or(_ name: String) -> String { environment ? " (or \(name))" : "" }
        key = Option.string("--key", name: "P8", help: "APNs auth key file AuthKey_<KEYID>.p8\(or("APNS_KEY_PATH")).", env: env("APNS_KEY_PATH"))
        keyID = Option.string("--key-id", name: "ID", help: "10-character key id\(environment ? " (or APNS_KEY_ID; default: from the file name)" : " (default: from the file name)").",
                              env: env("APNS_KEY_ID"))
        teamID = Option.string("--team-id", name: "ID", help: "10-character team id\(or("APNS_TEAM_ID")).", env: env("APNS_TEAM_ID"))
    }

    var options: [any OptionDeclaration] { [key, keyID, teamID] }
}

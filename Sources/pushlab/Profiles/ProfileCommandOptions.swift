/// The options every `pushlab profile …` command shares.
enum ProfileCommandOptions {
    static let config = UserConfig.option(help: "pushlab's config file (or PUSHLAB_CONFIG).")
    static let json = Option.flag("--json", help: "Print JSON.")
}

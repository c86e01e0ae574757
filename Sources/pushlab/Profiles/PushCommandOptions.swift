/// The options every `pushlab push …` command shares.
enum PushCommandOptions {
    static let config = UserConfig.option(help: "pushlab's config file (or PUSHLAB_CONFIG); pushes live in pushes/ beside it.")
    static let json = Option.flag("--json", help: "Print JSON.")
}

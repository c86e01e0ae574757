import Foundation

/// Where pushlab keeps the user's own data (XDG Base Directory Specification): never inside
/// an install prefix's files, so `make uninstall` leaves it, and a test can give each process
/// a private HOME / XDG_DATA_HOME / XDG_CONFIG_HOME.
/// - data (`$XDG_DATA_HOME/pushlab`, else `~/.local/share/pushlab`): the send history
///   (`history.sqlite`) and the relay's queue and API keys when `--data` is not given (`relay/`);
/// - config (`$XDG_CONFIG_HOME/pushlab`, else `~/.config/pushlab`): profiles (`config.json`)
///   and saved pushes (`pushes/`).
public enum UserDirectories {
    public static func data(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        base("XDG_DATA_HOME", fallback: ".local/share", environment) + "/pushlab"
    }

    public static func config(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        base("XDG_CONFIG_HOME", fallback: ".config", environment) + "/pushlab"
    }

    /// The XDG variable when it holds an absolute path (the spec: relative ones are invalid and
    /// ignored), else `$HOME/fallback`.
    private static func base(_ variable: String, fallback: String, _ environment: [String: String]) -> String {
        if let value = environment[variable], value.hasPrefix("/") { return value }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return home + "/" + fallback
    }
}

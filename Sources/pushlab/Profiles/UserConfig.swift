import Foundation
import PushCore
import PushStore

/// The user's pushlab configuration: named profiles (an app's APNs and/or FCM credentials and
/// environment) and which one is current. Secrets stay in their own files; only paths are kept.
/// Stored at `$XDG_CONFIG_HOME/pushlab/config.json` (default `~/.config/pushlab/config.json`),
/// or where `--config` / `PUSHLAB_CONFIG` says; saved pushes live in `pushes/` beside it.
struct UserConfig: Codable, Equatable {
    var current: String?
    var profiles: [String: Profile] = [:]

    struct Profile: Codable, Equatable {
        var apns: APNs?
        var fcm: FCM?
    }
    struct APNs: Codable, Equatable {
        /// Path of the AuthKey_<KEYID>.p8 file.
        var key: String
        var keyID: String?
        var teamID: String
        var bundleID: String
        /// `sandbox` or `production`; ignored when `url` is set.
        var environment: String
        /// Any APNs-speaking server (e.g. the emulator) instead of Apple's hosts.
        var url: String?
        var caFile: String?
    }
    struct FCM: Codable, Equatable {
        var serviceAccount: String
        var project: String?
        var url: String?
        var caFile: String?
    }

    /// Where the config lives: `--config`, else PUSHLAB_CONFIG, else the XDG path.
    /// `--config FILE` with `help`: the config file's path, from the flag, else PUSHLAB_CONFIG,
    /// else the XDG default — computed by `path(_:)`.
    static func option(help: String) -> TypedOption<String> {
        Option.value(["--config"], name: "FILE", help: help, kind: .string, computed: "~/.config/pushlab/config.json") { path(nil) }
    }

    static func path(_ flag: String?, environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let flag { return flag }
        if let p = environment["PUSHLAB_CONFIG"], !p.isEmpty { return p }
        return UserDirectories.config(environment: environment) + "/config.json"
    }

    /// The directory of saved pushes for the config at `path`.
    static func pushesDirectory(forConfig path: String) -> String {
        URL(fileURLWithPath: path).deletingLastPathComponent().appendingPathComponent("pushes").path
    }

    /// Reads the config; a missing file is an empty config.
    static func load(_ path: String) throws -> UserConfig {
        guard FileManager.default.fileExists(atPath: path) else { return UserConfig() }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw UsageError("\(path): cannot read the file", fix: "check its permissions, or pass another with --config")
        }
        // A syntax error first, with its line and column (JSONDecoder only says "not in the correct format").
        do { _ = try JSONDocument.parse(Array(data)) } catch {
            throw UsageError("\(path): not valid JSON (\(error.description))", fix: "fix the JSON at that line and column, or move the file away; docs/profiles.md shows the format")
        }
        do {
            return try JSONDecoder().decode(UserConfig.self, from: data)
        } catch let DecodingError.keyNotFound(key, context) {
            throw UsageError("\(path): \(pointer(context.codingPath + [key])) is missing", fix: "add it, or remove the profile and add it again with 'pushlab profile add'")
        } catch let DecodingError.typeMismatch(_, context) {
            throw UsageError("\(path): \(pointer(context.codingPath)) has the wrong type", fix: "compare with docs/profiles.md")
        } catch {
            throw UsageError("\(path): not a pushlab config (\(error.localizedDescription))", fix: "fix the JSON or move the file away; docs/profiles.md shows the format")
        }
    }

    func save(_ path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        do {
            try FileManager.default.createDirectory(atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path,
                                                    withIntermediateDirectories: true)
            try encoder.encode(self).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw UsageError("\(path): cannot write the config (\(error.localizedDescription))", fix: "check the directory's permissions, or pass another with --config")
        }
    }

    /// The named profile, or the current one when `name` is nil; nil when neither exists.
    func profile(named name: String?) throws -> (name: String, profile: Profile)? {
        guard let wanted = name ?? current else { return nil }
        guard let p = profiles[wanted] else {
            let known = profiles.keys.sorted()
            throw UsageError("no profile named '\(wanted)'",
                             fix: known.isEmpty ? "add one with 'pushlab profile add \(wanted) …'" : "use one of \(known.joined(separator: ", ")), or add it with 'pushlab profile add'")
        }
        return (wanted, p)
    }

    private static func pointer(_ path: [any CodingKey]) -> String {
        "/" + path.map(\.stringValue).joined(separator: "/")
    }
}

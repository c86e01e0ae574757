import Foundation
import PushCore
import PushSend

/// `pushlab history`: the pushes `send apns` / `send fcm` recorded.
enum HistoryCommand: Command {
    static let path = ["history"]
    static let summary = "Show recent sends (APNs and FCM) from the send history."
    static let discussion = """
        Every push sent by 'pushlab send' is recorded (unless --no-history) in an SQLite file: \
        $XDG_DATA_HOME/pushlab/history.sqlite, or ~/.local/share/pushlab/history.sqlite. Newest first.
        """
    static let last = Option.int("--last", help: "How many sends to show.", in: 1...1_000_000, default: 20)
    static let token = Option.string("--token", name: "TOKEN", help: "Only sends to this token (or FCM topic/condition); its first \(shortTokenLength) or more characters, as the output shows them (a trailing … is ignored), match every token that starts with them.")
    static let history = Option.value(["--history"], name: "PATH", help: "History database.", kind: .string,
                                      computed: "$XDG_DATA_HOME/pushlab/history.sqlite") { SendHistoryStore.defaultPath() }
    static let json = Option.flag("--json", help: "Print the rows as a JSON array.")
    static let fullTokens = Option.flag("--full-tokens", help: "Print whole device tokens (shortened to 8 characters otherwise).")

    static let options: [any OptionDeclaration] = [last, token, history, json, fullTokens]

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        let limit = try args[last]
        let path = try args[history]
        guard FileManager.default.fileExists(atPath: path) else {
            if args.isGiven(history) {
                throw UsageError("--history \(path): no such history file", fix: "check the path; sends create it")
            }
            if args[json] { emit("[]") } else { emit("no sends recorded yet (\(path))") }
            return ExitStatus.success
        }
        let store: SendHistoryStore
        do { store = try SendHistoryStore(path: path) } catch { throw UsageError("--history \(path): \(error)") }
        defer { store.close() }
        let filter = try args[token].map(tokenFilter)
        var entries = try store.recent(limit: limit, target: filter?.target, targetPrefix: filter?.prefix ?? false)
        // Device tokens are shortened in every output unless asked for (issue 11, secrets);
        // FCM topics and conditions are not tokens and stay whole.
        if !args[fullTokens] {
            for i in entries.indices where DeviceToken.classify(entries[i].target) != .invalid || entries[i].targetKind == "fid" {
                entries[i].target = shorten(entries[i].target)
            }
        }
        if args[json] {
            emit(try renderJSON(entries))
            return ExitStatus.success
        }
        if entries.isEmpty {
            emit("no sends" + (args.isGiven(token) ? " to that token" : "") + " in \(path)")
            return ExitStatus.success
        }
        let formatter = ISO8601DateFormatter()
        for e in entries {
            let what = e.outcome == "accepted" ? "accepted" : "\(e.outcome) \(e.reason ?? "")"
            let status = e.status.map { " \($0)" } ?? ""
            let id = e.messageID.map { "  \($0)" } ?? ""
            emit("\(formatter.string(from: e.sentAt))  \(e.provider.padding(toLength: 4, withPad: " ", startingAt: 0)) \(e.targetKind.padding(toLength: 5, withPad: " ", startingAt: 0)) \(shorten(e.target).padding(toLength: 10, withPad: " ", startingAt: 0))\(status) \(what)\(id)  (\(e.attempts)×, \(Int(e.latencyMs.rounded())) ms)")
        }
        return ExitStatus.success
    }

    /// How many characters of a device token the outputs show.
    static let shortTokenLength = 8

    static func shorten(_ token: String) -> String {
        token.count > shortTokenLength ? String(token.prefix(shortTokenLength)) + "…" : token
    }

    /// `--token` as typed: a whole target, or a shortened token (`3a5fe9c1…`) that matches as a prefix.
    static func tokenFilter(_ raw: String) throws -> (target: String, prefix: Bool) {
        var value = raw
        for suffix in ["…", "..."] where value.hasSuffix(suffix) { value = String(value.dropLast(suffix.count)) }
        guard !value.isEmpty else { throw UsageError("--token is empty", fix: "give the token, or its first \(shortTokenLength) characters as `pushlab history` prints them") }
        if DeviceToken.classify(value) != .invalid { return (value, false) }  // a whole token
        if value.count >= shortTokenLength, !value.contains(" "), !value.hasPrefix("/"), !value.contains("'") { return (value, true) }
        if value != raw {
            throw UsageError("--token \(raw): a shortened token needs at least \(shortTokenLength) characters",
                             fix: "copy the token as `pushlab history` prints it, e.g. --token 3a5fe9c1…")
        }
        return (value, false)  // an FCM topic or condition, matched whole
    }
}

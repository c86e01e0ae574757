import Foundation
import PushCore
import PushHTTP
import PushSend

/// What `send apns` and `send fcm` share, by concern: the option declarations here; the clients
/// (SendSupport+Connections), the history (+History), the payload (+Payload), the bulk send
/// (+Bulk) and what a single send prints (+Output).
enum SendSupport {
    static let caFileOption = Option.string("--ca-file", name: "PEM", help: "Trust this CA instead of the system store (e.g. certs/ca.pem for the local emulator).")
    static let timeout = Option.duration("--timeout", help: "Deadline of one request attempt.", default: .seconds(30))
    static let retries = Option.int("--retries", help: "Retries after a transient failure (5xx, 429, connection lost), with backoff and jitter.", in: 0...20, default: 3)
    static let noValidate = Option.flag("--no-validate", help: "Send even when pre-flight checks fail (to see what the service answers).")
    static let connectionOptions: [any OptionDeclaration] = [caFileOption, timeout, retries, noValidate]
    static let transportOption = Option.choice("--transport", help: "HTTP/2 client: nghttp2 (direct, cheaper per push) or curl (libcurl); "
        + "client certificates and *_proxy variables always use curl.", default: HTTPTransportKind.nghttp2)

    static let tokens = Option.string("--tokens", name: "FILE", help: "Bulk: send to every token of FILE (one per line, '-' for stdin, # comments).")
    static let concurrency = Option.int("--concurrency", help: "Bulk: pushes in flight at once.", in: 1...100_000, default: 200)
    static let connections = Option.int("--connections", help: "Bulk: HTTP/2 connections to spread them over.", in: 1...64, default: 1)
    static let out = Option.string("--out", name: "FILE", help: "Bulk: write one JSON line per push (token, id, status, reason, timestamp, attempts, latency); '-' for stdout.")
    static let pruneFile = Option.string("--prune-file", name: "FILE", help: "Bulk: write the tokens the service says are dead, one per line.")
    static let bulkOptions: [any OptionDeclaration] = [tokens, concurrency, connections, out, pruneFile]

    static let history = Option.value(["--history"], name: "PATH", help: "Send-history database.", kind: .string,
                                      computed: "$XDG_DATA_HOME/pushlab/history.sqlite") { SendHistoryStore.defaultPath() }
    static let noHistory = Option.flag("--no-history", help: "Do not record this send in the history.")
    static let json = Option.flag("--json", help: "Print the result (or the bulk summary) as JSON.")
    static let verbose = Option.flag("--verbose", "-v", help: "Show each request and answer (bearer redacted, device token shortened) on stderr.")
    static let reportingOptions: [any OptionDeclaration] = [history, noHistory, json, verbose]

    /// The builder flags the send commands share with `pushlab payload`.
    static let builderOptions: [any OptionDeclaration] = PayloadBuilderFlags.options

    /// How a payload made from the builder flags is named in messages.
    static let builderSource = "<builder flags>"
}

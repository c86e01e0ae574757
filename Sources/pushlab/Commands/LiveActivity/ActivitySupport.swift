import Foundation
import PushAuth
import PushCore
import PushDevice
import PushHTTP

/// Shared by the `pushlab activity …` commands: the app profile, timeline rendering, the
/// emulator's `/admin/activities` calls.
enum ActivitySupport {
    static func profile(_ path: String?) throws -> LiveActivityProfile {
        guard let path else { return LiveActivityProfile() }
        do { return try AppProfile.load(path: path).liveActivities ?? LiveActivityProfile() } catch {
            throw UsageError("--app \(error.reason)", fix: error.fix)
        }
    }

    static func line(_ e: LiveActivityTimelineEvent, origin: Int) -> String {
        let offset = e.at - origin
        let t = "t\(offset >= 0 ? "+" : "")\(offset)s".padding(toLength: 9, withPad: " ", startingAt: 0)
        let mark = e.isRejection ? "✘" : "✔"
        return "  \(t) \(mark) \(e.kind.rawValue.padding(toLength: 15, withPad: " ", startingAt: 0)) \(e.activityID ?? "-")  \(e.detail)"
    }

    static func lockScreen(_ activities: [LiveActivity]) -> String {
        let visible = activities.filter { $0.phase != .dismissed }
        if visible.isEmpty { return "  lock screen: no Live Activity" }
        return visible.sorted { ($0.relevanceScore ?? 0) > ($1.relevanceScore ?? 0) }.map { a in
            var s = "  lock screen: \(a.id) \(a.attributesType) [\(a.phase.rawValue)] \(String(decoding: a.contentState.minifiedBytes(), as: UTF8.self))"
            if let stale = a.staleDate, a.phase == .active { s += " (stale at \(stale))" }
            if let d = a.dismissalDate, a.phase == .ended { s += " (dismissed at \(d))" }
            if let token = a.pushToken { s += " token \(Redact.token(token))" }
            if let url = a.widgetURL { s += "\n               tap → \(url)" }
            return s
        }.joined(separator: "\n")
    }

    static let url = Option.string("--url", name: "URL", help: "The emulator's Google-host URL (pushlab serve prints it), e.g. https://127.0.0.1:8443.")
    static let caFile = Option.string("--ca-file", name: "PEM", help: "Trust this CA (certs/ca.pem for the emulator).")
    static let json = Option.flag("--json", help: "Print the emulator's answer as JSON.")
    static let adminOptions: [any OptionDeclaration] = [
        url, caFile, json,
    ]

    /// One `/admin/activities…` exchange; throws a usage error naming the field on a 4xx.
    static func admin(_ args: ParsedArguments, _ method: String, _ path: String, body: JSONValue? = nil) async throws -> JSONValue {
        let base = try args.required(url, fix: "pass the URL `pushlab serve` printed for the Google host, e.g. --url https://127.0.0.1:8443")
        let client = try HTTPClient(configuration: HTTPClientConfiguration(caFile: try args[caFile]))
        var headers = HTTPHeaders()
        if body != nil { headers.add("content-type", "application/json") }
        let response: HTTPResponse
        do {
            response = try await client.send(HTTPRequest(method: method, url: base.trimmingSuffix("/") + path, headers: headers,
                                                         body: body?.minifiedBytes() ?? [], timeout: .seconds(30)))
        } catch {
            await client.shutdown()
            throw UsageError("--url \(base): \(error)", fix: "is pushlab serve running there? (--ca-file certs/ca.pem for its certificate)")
        }
        // Awaited, not fire-and-forget: a process that exits while the client's loop thread still
        // runs races OpenSSL's exit-time cleanup ("double free or corruption" seen in a test run).
        await client.shutdown()
        let json = (try? JSONDocument.parse(response.body))?.root ?? .null
        if response.status >= 400 {
            throw UsageError("the emulator refused: \(response.status) \(json["error"]?.stringValue ?? String(decoding: response.body.prefix(200), as: UTF8.self))",
                             fix: json["fix"]?.stringValue)
        }
        return json
    }
}

extension String {
    func trimmingSuffix(_ suffix: String) -> String { hasSuffix(suffix) ? String(dropLast(suffix.count)) : self }
}

import Foundation
import PushAuth
import PushCore
import PushDevice
import PushHTTP

/// `pushlab activity tap`: a tap on a Live Activity, replayed against the app profile.
enum ActivityTapCommand: Command {
    static let path = ["activity", "tap"]
    static let summary = "Replay a tap on a Live Activity: which handlers see the URL, the opened metric, the destination."
    static let positionalUsage = "URL"
    static let discussion = """
        iOS opens the app with the widget's URL. Customer.io's Live Activities module makes it a \
        tracking URL, cio-live-activity://open?cio_delivery_id=…&cio_delivery_token=…&cio_redirect=…, \
        and the app must pass every opened URL to CustomerIO.liveActivities.handleWidgetUrl(_:) exactly \
        once: it reports opened and returns the destination (an ordinary URL unchanged; a tracking URL \
        without cio_redirect: nothing). Under UIScene the cold path is scene(_:willConnectTo:options:) and \
        the warm path scene(_:openURLContexts:). The profile's liveActivities.widgetURLHandlers says where \
        the app calls it (scene-will-connect, scene-open-url-contexts, app-open-url, expo-native-intent, \
        linking-listener).

        With --collector URL the opened metrics are posted as the SDK posts them: through the app's \
        event pipeline, like a push's opened (POST <URL>/v1/b, "Report Delivery Event" with metric \
        opened, deliveryId and recipient = cio_delivery_token), with the profile's cdpApiKey; \
        e.g. to 'pushlab collector' or 'pushlab serve'.

        Exit status: 0 handled exactly once (or an ordinary URL), 1 a missing handler or double \
        handling (the fix is printed) or an upload that failed, 2 bad usage or input.
        """
    static let app = Option.string("--app", name: "JSON", help: "App profile with liveActivities.lifecycle and widgetURLHandlers.")
    static let cold = Option.flag("--cold", help: "The app was not running (the default).")
    static let warm = Option.flag("--warm", help: "The app was running.")
    static let collector = Option.string("--collector", name: "URL", help: "Post the opened metrics to this metrics host (e.g. http://127.0.0.1:8081 or https://localhost:8443).")
    static let caFile = Option.string("--ca-file", name: "FILE", help: "Trust this CA (PEM) for the collector, e.g. certs/ca.pem.")
    static let json = Option.flag("--json", help: "Print the outcome as JSON.")
    static let options: [any OptionDeclaration] = [
        app, cold, warm, collector, caFile, json,
    ]

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        guard args.positionals.count == 1, let url = args.positionals.first else {
            throw UsageError("give one URL, the widget's tap URL", fix: "e.g. pushlab activity tap 'cio-live-activity://open?cio_delivery_id=D1&cio_redirect=myapp://orders/42' --app payloads/apps/live.json")
        }
        if args[cold] && args[warm] { throw UsageError("give --cold or --warm, not both") }
        guard args.isGiven(app) else { throw UsageError("missing --app PROFILE", fix: "e.g. --app payloads/apps/live.json") }
        let profile = try ActivitySupport.profile(try args[app])
        let outcome = LiveActivityTapReplay.replay(url: url, profile: profile, launch: args[warm] ? .warm : .cold)
        let upload = try await postOpened(outcome, args: args)
        if args[json] {
            var members = [
                JSONMember(key: "url", value: .string(outcome.url)),
                JSONMember(key: "launch", value: .string(outcome.launch.rawValue)),
                JSONMember(key: "deliveredTo", value: .string(outcome.deliveredTo)),
                JSONMember(key: "handlerCalls", value: .array(JSONArray(outcome.calls.map { .string($0.rawValue) }))),
                JSONMember(key: "openedReports", value: .array(JSONArray(outcome.openedReports.map { .string($0) }))),
                JSONMember(key: "destination", value: outcome.destination.map { .string($0) } ?? .null),
                JSONMember(key: "trackingURL", value: .bool(outcome.isTrackingURL)),
                JSONMember(key: "verdict", value: .string(outcome.verdict.rawValue)),
            ]
            if let fix = outcome.fix { members.append(JSONMember(key: "fix", value: .string(fix))) }
            members.append(JSONMember(key: "notes", value: .array(JSONArray(outcome.notes.map { .string($0) }))))
            if let upload {
                members.append(JSONMember(key: "uploads", value: .array(JSONArray(upload.lines.map { .string($0) }))))
                members.append(JSONMember(key: "uploadedEvents", value: .number(JSONNumber(upload.sent))))
                members.append(JSONMember(key: "leftInQueue", value: .number(JSONNumber(upload.remaining))))
            }
            emit(JSONValue.object(JSONObject(members)).prettyPrinted())
        } else {
            emit("tap (\(outcome.launch.rawValue)): iOS delivers the URL to \(outcome.deliveredTo)")
            emit("handleWidgetUrl calls: \(outcome.calls.isEmpty ? "none" : outcome.calls.map(\.rawValue).joined(separator: ", "))")
            emit("opened metrics reported: \(outcome.openedReports.count)\(outcome.openedReports.first.map { " (delivery \($0))" } ?? "")")
            emit("destination: \(outcome.destination ?? "nothing to route")")
            for note in outcome.notes { emit("note: \(note)") }
            switch outcome.verdict {
            case .ok: emit("✔ handled exactly once")
            case .missingHandler: emit("✘ missing handler: the tap is not attributed and the app gets a URL it cannot route")
            case .doubleHandling: emit("✘ double handling: \(outcome.openedReports.count) opened metrics for one tap")
            }
            if let fix = outcome.fix { emit("  fix: \(fix)") }
            if let upload {
                for line in upload.lines { emit("upload: \(line)") }
                if upload.lines.isEmpty { emit("upload: no opened metric to post") }
                if upload.remaining > 0 { emit("✘ \(upload.remaining) opened metric(s) not accepted by the collector: still in the app's queue") }
            }
        }
        if let upload, upload.remaining > 0 { return ExitStatus.failure }
        return outcome.verdict == .ok ? ExitStatus.success : ExitStatus.failure
    }

    /// Posts the tap's opened metrics to `--collector` through the app's event pipeline.
    private static func postOpened(_ outcome: LiveActivityTapReplay.Outcome, args: ParsedArguments) async throws -> (lines: [String], sent: Int, remaining: Int)? {
        guard let collector = try args[Self.collector] else { return nil }
        guard let u = URL(string: collector), ["http", "https"].contains(u.scheme ?? ""), u.host != nil else {
            throw UsageError("--collector '\(collector)' is not an http(s) URL", fix: "e.g. --collector http://127.0.0.1:8081 (a 'pushlab collector')")
        }
        guard let path = try args[app] else { return nil }
        var app: AppProfile
        do { app = try AppProfile.load(path: path) } catch { throw UsageError("--app \(error.reason)", fix: error.fix) }
        app.metricsBaseURL = collector
        let client = try HTTPClient(configuration: HTTPClientConfiguration(caFile: try args[caFile]))
        let pipeline = LaunchRecovery.pipeline(for: app, transport: client)
        for event in outcome.openedEvents(identity: PipelineIdentity(anonymousId: "pushlab-activity-tap")) { await pipeline.enqueue(event) }
        let flush = await pipeline.flush()
        await client.shutdown()
        return (flush.attempts.map { "POST \($0.request.url) → \($0.outcome.summary)" }, flush.sentEvents, flush.remaining)
    }
}

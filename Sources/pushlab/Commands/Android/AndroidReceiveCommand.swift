import Foundation
import PushCore
import PushDevice
import PushHTTP

/// `pushlab android receive`: one FCM message through the virtual Android phone.
enum AndroidReceiveCommand: Command {
    static let path = ["android", "receive"]
    static let summary = "Run an FCM message through a virtual Android phone with the Customer.io Android SDK."
    static let positionalUsage = "message.json…"
    static let discussion = """
    Applies Firebase's rules for message type × app state, the SDK's recognition and duplicate
    guard, channel selection, POST_NOTIFICATIONS and the image download within the handler's
    window; shows the timeline and the notification as the shade shows it. Then runs the
    delivered metric through emulated time: the pending store file in --files-dir, the
    WorkManager job (needs network, backs off 30 s doubling), the direct fallback, --kill-at,
    --offline and --doze windows, and the hand-off at --launch-at. Several message files run in
    one process, in order (the duplicate guard sees them all). See docs/android.md.
    Exit status: 0 when every message is shown with its image and (with a metrics host) its
    delivered metric reached the server once; 1 otherwise (nothing shown, image dropped, metric
    lost or still pending).
    """
    static let locked = Option.flag("--locked", help: "The screen is locked (the FCM SDK then treats a foreground app as background).")
    static let caFile = Option.string("--ca-file", name: "FILE", help: "Trust this CA (PEM) for image and metrics hosts, e.g. certs/ca.pem.")
    static let filesDir = Option.string("--files-dir", name: "DIR", help: "The app's filesDir: holds cio_pending_push_delivery.json for 'pushlab android launch'.", described: "a temporary directory")
    static let window = Option.value(["--window"], name: "MS", help: "The real-time window of onMessageReceived (the platform's limit on the image download).",
                                     kind: AndroidInputs.instant, default: 20_000)
    static let offline = Option.values(["--offline"], name: "A-B", help: "No network from A to B ms after the push (repeatable).", kind: AndroidInputs.window)
    static let doze = Option.values(["--doze"], name: "A-B", help: "The phone dozes from A to B: no network for the app, no jobs; normal priority waits (repeatable).",
                                    kind: AndroidInputs.window)
    static let killAt = Option.value(["--kill-at"], name: "MS", help: "The process dies at this instant (WorkManager's job survives).", kind: AndroidInputs.instant)
    static let launchAt = Option.value(["--launch-at"], name: "MS", help: "The user brings the app to the foreground: the SDK hands pending metrics to its pipeline.",
                                       kind: AndroidInputs.instant)
    static let horizon = Option.value(["--horizon"], name: "MS", help: "Stop emulating at this instant.", kind: AndroidInputs.instant, default: 86_400_000)
    static let json = Option.flag("--json", help: "Print the reports as JSON.")
    static let options: [any OptionDeclaration] = [
        AndroidInputs.app, AndroidInputs.state, locked, AndroidInputs.metricsURL, caFile, filesDir, window, offline, doze, killAt, launchAt, horizon, json,
    ]

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        guard !args.positionals.isEmpty else {
            throw UsageError("expected a message file", fix: "pushlab android receive payloads/fcm/android-rich-push.json --app payloads/apps/android-demo.json")
        }
        let messages = try args.positionals.map(AndroidInputs.message)
        let profile = try AndroidInputs.profile(args)
        let state = try args[AndroidInputs.state]
        let window = try args[Self.window]
        guard window > 0 else { throw UsageError("--window must be more than 0") }
        let conditions = AndroidConditions(offline: try args[offline], doze: try args[doze],
                                           killAtMs: try args[killAt], launchAtMs: try args[launchAt],
                                           horizonMs: try args[horizon])
        var conditionsUsed = conditions
        // Without a metrics host nothing is sent: stop the metric where the SDK stored it.
        if profile.metricsBaseURL == nil { conditionsUsed.horizonMs = 0 }
        let (filesDir, temporary) = try AndroidInputs.filesDir(try args[Self.filesDir], required: false)
        defer { if temporary { try? FileManager.default.removeItem(at: filesDir) } }
        let (client, transport) = try AndroidInputs.transport(caFile: try args[caFile], profile: profile)
        let phone: AndroidPhone
        do { phone = try AndroidPhone(profile: profile, transport: transport, filesDir: filesDir, handlerWindowMs: window) } catch {
            await client.shutdown()
            throw UsageError("--files-dir \(filesDir.path): cannot create it (\(error.localizedDescription))")
        }
        var reports: [AndroidReceiveReport] = []
        for m in messages { reports.append(await phone.receive(m, state: state, screenLocked: args[locked], conditions: conditionsUsed)) }
        await client.shutdown()
        if args[json] {
            emit(try renderJSON(reports.count == 1 ? AnyEncodable(reports[0]) : AnyEncodable(reports)))
        } else {
            emit(zip(args.positionals, reports).map { AndroidReportText.receive($1, source: $0, profile: profile, metricsSent: profile.metricsBaseURL != nil) }
                    .joined(separator: "\n"))
        }
        return reports.allSatisfy { AndroidReportText.isComplete($0, metricsSent: profile.metricsBaseURL != nil) } ? ExitStatus.success : ExitStatus.failure
    }
}

/// Encodes one value or a list behind one type.
struct AnyEncodable: Encodable {
    let value: any Encodable
    init(_ value: any Encodable) { self.value = value }
    func encode(to encoder: Encoder) throws { try value.encode(to: encoder) }
}

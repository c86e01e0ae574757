import Foundation
import PushCore
import PushDevice
import PushHTTP

/// Inputs the `pushlab android` commands share.
enum AndroidInputs {
    static let appOption = OptionSpec.value("--app", name: "FILE", help: "Android app profile JSON (see payloads/apps/android-*.json).",
                                            default: "payloads/apps/android-demo.json values, built in")
    static let metricsOption = OptionSpec.value("--metrics-url", name: "URL",
                                                help: "Send metrics to this host (e.g. a local 'pushlab collector'); overrides the profile's metricsBaseURL. Without either, nothing is sent.")

    /// The profile from `--app`, or the built-in demo app; `--metrics-url` applied.
    static func profile(_ args: ParsedArguments) throws -> AndroidAppProfile {
        var profile: AndroidAppProfile
        if let path = args.value("--app") {
            do { profile = try AndroidAppProfile.load(path: path) } catch { throw UsageError("--app \(error.reason)", fix: error.fix) }
        } else {
            profile = AndroidAppProfile(package: "io.pushlab.shop", label: "Pushlab Shop", cdpApiKey: "pushlab-demo-cdp-key",
                                        channels: [AndroidChannel(id: "io.pushlab.shop", importance: 3)])
        }
        if let url = args.value("--metrics-url") {
            guard let u = URL(string: url), ["http", "https"].contains(u.scheme ?? ""), u.host != nil else {
                throw UsageError("--metrics-url '\(url)' is not an http(s) URL", fix: "e.g. --metrics-url https://localhost:8443")
            }
            profile.metricsBaseURL = url
        }
        return profile
    }

    /// A real client when a metrics host is configured; otherwise a transport that refuses
    /// metric requests (images still load), so pushlab never reports to Customer.io by accident.
    static func transport(_ args: ParsedArguments, profile: AndroidAppProfile) throws -> (HTTPClient, any HTTPTransport) {
        let client = try HTTPClient(configuration: HTTPClientConfiguration(caFile: args.value("--ca-file")))
        return (client, profile.metricsBaseURL == nil ? MetricsDisabledTransport(inner: client, metricsHost: profile.metricsHost) : client)
    }

    static func state(_ args: ParsedArguments) throws -> AndroidAppState {
        guard let raw = args.value("--state") else { return .background }
        guard let s = AndroidAppState(rawValue: raw) else {
            throw UsageError("--state must be one of foreground, background, killed; got '\(raw)'")
        }
        return s
    }

    static func windows(_ args: ParsedArguments, _ name: String) throws -> [AndroidTimeWindow] {
        try args.all(name).map { raw in
            guard let w = AndroidTimeWindow.parse(raw) else {
                throw UsageError("\(name) takes a window A-B in ms or with units (0-60000, 10s-2m), got '\(raw)'")
            }
            return w
        }
    }

    static func instant(_ args: ParsedArguments, _ name: String) throws -> Int64? {
        guard let raw = args.value(name) else { return nil }
        guard let v = AndroidTimeWindow.parseMs(raw) else { throw UsageError("\(name) takes milliseconds (1500) or a duration (2s, 5m), got '\(raw)'") }
        return v
    }

    static func message(_ path: String) throws -> AndroidMessage {
        let bytes = try readInput(path, what: "message file")
        let root: JSONValue
        do { root = try JSONParser().parse(bytes).root } catch {
            throw UsageError("\(path): not valid JSON: \(error)", fix: "check it with 'pushlab validate \(path)'")
        }
        do { return try AndroidMessage.parse(root) } catch { throw UsageError("\(path): \(error)") }
    }

    static func filesDir(_ args: ParsedArguments, required: Bool) throws -> (URL, Bool) {
        if let path = args.value("--files-dir") {
            var isDir: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDir), !isDir.boolValue {
                throw UsageError("--files-dir \(path): is a file, expected a directory")
            }
            return (URL(fileURLWithPath: path, isDirectory: true), false)
        }
        if required { throw UsageError("missing --files-dir", fix: "pass the directory 'pushlab android receive --files-dir DIR' used") }
        let tmp = FileManager.default.temporaryDirectory.appendingPathComponent("pushlab-android-\(UUID().uuidString)")
        return (tmp, true)
    }
}

/// Refuses requests to the metrics host (no `--metrics-url`): they fail like a network error.
struct MetricsDisabledTransport: HTTPTransport {
    let inner: any HTTPTransport
    let metricsHost: String
    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        if request.url.hasPrefix(metricsHost) { throw HTTPClientError.connectFailed("metrics not sent: no --metrics-url (or metricsBaseURL in the profile)") }
        return try await inner.send(request)
    }
}

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
    static let options: [OptionSpec] = [
        AndroidInputs.appOption,
        .value("--state", name: "STATE", help: "foreground, background or killed.", default: "background"),
        .flag("--locked", help: "The screen is locked (the FCM SDK then treats a foreground app as background)."),
        AndroidInputs.metricsOption,
        .value("--ca-file", name: "FILE", help: "Trust this CA (PEM) for image and metrics hosts, e.g. certs/ca.pem."),
        .value("--files-dir", name: "DIR", help: "The app's filesDir: holds cio_pending_push_delivery.json for 'pushlab android launch'.", default: "a temporary directory"),
        .value("--window", name: "MS", help: "The real-time window of onMessageReceived (the platform's limit on the image download).", default: "20000"),
        .value("--offline", name: "A-B", help: "No network from A to B ms after the push (repeatable).", repeatable: true),
        .value("--doze", name: "A-B", help: "The phone dozes from A to B: no network for the app, no jobs; normal priority waits (repeatable).", repeatable: true),
        .value("--kill-at", name: "MS", help: "The process dies at this instant (WorkManager's job survives)."),
        .value("--launch-at", name: "MS", help: "The user brings the app to the foreground: the SDK hands pending metrics to its pipeline."),
        .value("--horizon", name: "MS", help: "Stop emulating at this instant.", default: "24h"),
        .flag("--json", help: "Print the reports as JSON."),
    ]

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        guard !args.positionals.isEmpty else {
            throw UsageError("expected a message file", fix: "pushlab android receive payloads/fcm/android-rich-push.json --app payloads/apps/android-demo.json")
        }
        let messages = try args.positionals.map(AndroidInputs.message)
        let profile = try AndroidInputs.profile(args)
        let state = try AndroidInputs.state(args)
        let window = try AndroidInputs.instant(args, "--window") ?? 20_000
        guard window > 0 else { throw UsageError("--window must be more than 0") }
        let conditions = AndroidConditions(offline: try AndroidInputs.windows(args, "--offline"), doze: try AndroidInputs.windows(args, "--doze"),
                                           killAtMs: try AndroidInputs.instant(args, "--kill-at"), launchAtMs: try AndroidInputs.instant(args, "--launch-at"),
                                           horizonMs: try AndroidInputs.instant(args, "--horizon") ?? 86_400_000)
        var conditionsUsed = conditions
        // Without a metrics host nothing is sent: stop the metric where the SDK stored it.
        if profile.metricsBaseURL == nil { conditionsUsed.horizonMs = 0 }
        let (filesDir, temporary) = try AndroidInputs.filesDir(args, required: false)
        defer { if temporary { try? FileManager.default.removeItem(at: filesDir) } }
        let (client, transport) = try AndroidInputs.transport(args, profile: profile)
        let phone: AndroidPhone
        do { phone = try AndroidPhone(profile: profile, transport: transport, filesDir: filesDir, handlerWindowMs: window) } catch {
            await client.shutdown()
            throw UsageError("--files-dir \(filesDir.path): cannot create it (\(error.localizedDescription))")
        }
        var reports: [AndroidReceiveReport] = []
        for m in messages { reports.append(await phone.receive(m, state: state, screenLocked: args.flag("--locked"), conditions: conditionsUsed)) }
        await client.shutdown()
        if args.flag("--json") {
            emit(try renderJSON(reports.count == 1 ? AnyEncodable(reports[0]) : AnyEncodable(reports)))
        } else {
            emit(zip(args.positionals, reports).map { AndroidReportText.receive($1, source: $0, profile: profile, metricsSent: profile.metricsBaseURL != nil) }
                    .joined(separator: "\n"))
        }
        return reports.allSatisfy { AndroidReportText.isComplete($0, metricsSent: profile.metricsBaseURL != nil) } ? ExitStatus.success : ExitStatus.failure
    }
}

/// `pushlab android open`: a tap on a notification of the virtual Android phone.
enum AndroidOpenCommand: Command {
    static let path = ["android", "open"]
    static let summary = "Tap a notification on the virtual Android phone: SDK routing, PushClickBehavior, task stack, opened metric."
    static let positionalUsage = "[message.json]"
    static let discussion = """
    Follows the SDK's order: opened metric, the app's onNotificationClicked callback, the app's
    own intent filters, another app, the launcher; applies PushClickBehavior to the task stack
    and Android 12's trampoline rule (targetSdk 31+). A tray notification (--drawn-by fcm-sdk)
    opens the launcher or click_action activity and counts opened only in ON_CREATE. The link
    comes from the message's data.link or --link. --cases runs a table of taps
    (payloads/taps/android-cases.json) and checks each expectation. The opened metric is
    uploaded on the app's pipeline (POST /v1/b) when a metrics host is set. See docs/android.md.
    """
    static let options: [OptionSpec] = [
        AndroidInputs.appOption,
        .value("--link", name: "URL", help: "The notification's data.link (instead of a message file)."),
        .value("--drawn-by", name: "WHO", help: "customer.io-sdk (a data message the SDK drew) or fcm-sdk (a tray notification).", default: "customer.io-sdk"),
        .value("--state", name: "STATE", help: "foreground, background or killed.", default: "background"),
        .value("--stack", name: "A,B", help: "The app's task before the tap, bottom to top.", default: "the launcher activity"),
        .value("--click-action", name: "ACTIVITY", help: "Tray notifications: the click_action activity."),
        .value("--cases", name: "FILE", help: "Run a tap table, e.g. payloads/taps/android-cases.json; exit 1 if a case differs."),
        AndroidInputs.metricsOption,
        .value("--ca-file", name: "FILE", help: "Trust this CA (PEM) for the metrics host."),
        .flag("--json", help: "Print the outcome as JSON."),
    ]

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        if let cases = args.value("--cases") { return try runCases(cases, json: args.flag("--json")) }
        guard args.positionals.count <= 1 else { throw UsageError("expected at most one message file") }
        let profile = try AndroidInputs.profile(args)
        let message = try args.positionals.first.map(AndroidInputs.message)
        var tap = AndroidTap(link: args.value("--link") ?? message?.dataValue(AndroidSDKContract.linkKey), state: try AndroidInputs.state(args))
        if let who = args.value("--drawn-by") {
            guard let d = AndroidDrawer(rawValue: who) else { throw UsageError("--drawn-by must be customer.io-sdk or fcm-sdk, got '\(who)'") }
            tap.drawnBy = d
        }
        tap.stack = args.value("--stack").map { $0.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) } }
        tap.clickAction = args.value("--click-action") ?? message?.clickAction
        for name in (tap.stack ?? []) + [tap.clickAction].compactMap({ $0 }) where profile.activity(named: name) == nil {
            throw UsageError("'\(name)' is not an activity of \(profile.package)", fix: "use one of: \(profile.activities.map(\.name).joined(separator: ", "))")
        }
        let outcome = AndroidTapRouter(profile: profile).tap(tap)
        var upload: String? = nil
        if outcome.openedMetrics > 0, let id = message?.deliveryID, let token = message?.deliveryToken {
            if profile.metricsBaseURL == nil {
                upload = "not uploaded (no --metrics-url)"
            } else {
                let (client, transport) = try AndroidInputs.transport(args, profile: profile)
                let pipeline = AndroidDeliveredMetric.pipeline(profile: profile, transport: transport)
                for _ in 0..<outcome.openedMetrics {
                    await pipeline.enqueue(.deliveryMetric(.opened, deliveryID: id, recipient: token, timestamp: Date(),
                                                           identity: PipelineIdentity(anonymousId: "pushlab-android-anon")))
                }
                let report = await pipeline.flush()
                await client.shutdown()
                upload = report.attempts.map { "POST \($0.request.url) → \($0.outcome.summary)" }.joined(separator: "; ")
                if report.remaining > 0 {
                    emit(args.flag("--json") ? try renderJSON(outcome) : AndroidReportText.tap(outcome, upload: upload))
                    return ExitStatus.failure
                }
            }
        }
        emit(args.flag("--json") ? try renderJSON(outcome) : AndroidReportText.tap(outcome, upload: upload))
        return ExitStatus.success
    }

    static func runCases(_ path: String, json: Bool) throws -> Int32 {
        let table: AndroidTapCaseTable
        do { table = try AndroidTapCaseTable.load(path: path) } catch { throw UsageError("--cases \(error.reason)", fix: error.fix) }
        var rows: [[String]] = []
        var failures = 0
        struct Row: Encodable { var name: String; var outcome: AndroidTapOutcome; var mismatches: [String] }
        var out: [Row] = []
        for c in table.cases {
            let (outcome, wrong) = AndroidTapCaseTable.run(c)
            if !wrong.isEmpty { failures += 1 }
            out.append(Row(name: c.name, outcome: outcome, mismatches: wrong))
            rows.append([wrong.isEmpty ? "ok" : "FAIL", c.name, outcome.route.rawValue, outcome.target ?? "-", outcome.delivery,
                         outcome.stack.joined(separator: " → "), "\(outcome.openedMetrics)", outcome.diagnostics.map(\.code).joined(separator: ",")]
                        + (wrong.isEmpty ? [] : [wrong.joined(separator: "; ")]))
        }
        if json {
            emit(try renderJSON(out))
        } else {
            var text = AndroidReportText.table(["", "case", "route", "target", "delivery", "stack", "opened", "diagnostics"], rows)
            text += "\(table.cases.count - failures) of \(table.cases.count) cases as expected\n"
            emit(text)
        }
        return failures == 0 ? ExitStatus.success : ExitStatus.failure
    }
}

/// `pushlab android launch`: the app comes to the foreground and hands pending metrics off.
enum AndroidLaunchCommand: Command {
    static let path = ["android", "launch"]
    static let summary = "Bring the virtual Android app to the foreground: the SDK hands pending delivered metrics to its pipeline."
    static let discussion = """
    Reads cio_pending_push_delivery.json in --files-dir (what 'pushlab android receive' left),
    claims each entry and publishes it as a Delivered push metric on the app's analytics
    pipeline, then flushes the pipeline now (POST /v1/b; the SDK's timer would wait up to 30 s).
    cio-android-legacy has no pending store and hands off nothing. See docs/android.md.
    Exit status: 1 when the upload failed (the events stay in the app's queue, not the file).
    """
    static let options: [OptionSpec] = [
        AndroidInputs.appOption,
        .value("--files-dir", name: "DIR", help: "The app's filesDir, as given to 'pushlab android receive'."),
        AndroidInputs.metricsOption,
        .value("--ca-file", name: "FILE", help: "Trust this CA (PEM) for the metrics host."),
        .flag("--json", help: "Print the hand-off as JSON."),
    ]

    struct Report: Encodable {
        var handedOff: [String]
        var uploads: [String]
        var remainingInQueue: Int
        var leftInStore: Int
    }

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        guard args.positionals.isEmpty else { throw UsageError("unexpected argument '\(args.positionals[0])'") }
        let profile = try AndroidInputs.profile(args)
        let (filesDir, _) = try AndroidInputs.filesDir(args, required: true)
        let store = try AndroidPendingDeliveryStore(filesDir: filesDir)
        let (client, transport) = try AndroidInputs.transport(args, profile: profile)
        let pipeline = AndroidDeliveredMetric.pipeline(profile: profile, transport: transport)
        let claimed = await AndroidForegroundHandoff.run(store: store, pipeline: pipeline, mode: profile.sdkMode,
                                                         identity: PipelineIdentity(anonymousId: "pushlab-android-anon"))
        let flush = claimed.isEmpty ? nil : await pipeline.flush()
        await client.shutdown()
        let report = Report(handedOff: claimed.map(\.deliveryId),
                            uploads: flush?.attempts.map { "POST \($0.request.url) → \($0.outcome.summary)" } ?? [],
                            remainingInQueue: flush?.remaining ?? 0, leftInStore: store.loadAll().count)
        if args.flag("--json") {
            emit(try renderJSON(report))
        } else {
            var out = "android launch: \(profile.package) comes to the foreground (ON_START), sdk \(profile.sdkMode.rawValue)\n"
            if profile.sdkMode == .cioAndroidLegacy { out += "this SDK version has no pending store: nothing to hand off\n" }
            out += "handed off \(claimed.count) pending delivered metric(s)" + (claimed.isEmpty ? "" : ": " + claimed.map(\.deliveryId).joined(separator: ", ")) + "\n"
            for u in report.uploads { out += "upload: \(u)\n" }
            out += "left in the app's queue: \(report.remainingInQueue)   left in \(AndroidSDKContract.pendingStoreFileName): \(report.leftInStore)\n"
            emit(out)
        }
        return report.remainingInQueue == 0 ? ExitStatus.success : ExitStatus.failure
    }
}

/// Encodes one value or a list behind one type.
struct AnyEncodable: Encodable {
    let value: any Encodable
    init(_ value: any Encodable) { self.value = value }
    func encode(to encoder: Encoder) throws { try value.encode(to: encoder) }
}

import Foundation
import PushCore
import PushDevice
import PushHTTP

/// `pushlab open`: replays a notification tap against a described app — which deep-link tier
/// handles the link, where the user lands, whether `opened` is reported, and why
/// (docs/specs/device-side.md §3, §5, §6; docs/deep-links.md).
enum OpenCommand: Command {
    static let path = ["open"]
    static let summary = "Replay a notification tap: deep-link tiers, destination, opened metric, diagnostics."
    static let positionalUsage = "[payload.json]"
    static let discussion = """
        Reads an APNs payload (or an FCM v1 message; its apns.payload is what iOS receives) and the \
        app profile's deepLinks section, taps the notification and reports the tier that handled \
        CIO.push.link, the destination (app route, other app, browser, nothing), the opened metric, \
        the order of work, and each misconfiguration with its fix.

        The opened metric goes through the app's batched event pipeline (/v1/b, or /push/events for \
        sdkMode cio-legacy). It is sent when --collector is given or the profile sets metricsBaseURL; \
        otherwise (and with --no-metrics) the request that would be sent is shown instead.

        --cases FILE replays a table of taps (payloads/taps/cases.json) and prints a matrix; each \
        case's expectation is checked.

        Exit status: 0 when the tap resolved without an error-level diagnostic (and the metric, if \
        sent, was accepted; with --cases: every expectation held); 1 otherwise; 2 for bad input.
        """
    static let app = Option.string("--app", name: "FILE", help: "App profile JSON with a deepLinks section (payloads/apps/).")
    static let action = Option.string("--action", name: "ACTION", help: "default (tap), dismiss, or a custom action id.", default: "default")
    static let cold = Option.flag("--cold", help: "The app is terminated; the tap launches it.")
    static let warm = Option.flag("--warm", help: "The app is in the background (the default).")
    static let foreground = Option.flag("--foreground", help: "The app is in the foreground; willPresent decides whether the push shows.")
    static let scene = Option.flag("--scene", help: "The app adopted UIScene: its URL handlers move to the scene delegate.")
    static let attachments = Option.strings("--attachment", name: "FILE", help: "An image file the NSE attached (deleted after a default tap).")
    static let collector = Option.string("--collector", name: "URL", help: "Send the opened metric to this base URL (overrides metricsBaseURL).")
    static let caFile = Option.string("--ca-file", name: "PEM", help: "Trust this CA for an https collector (e.g. certs/ca.pem).")
    static let noMetrics = Option.flag("--no-metrics", help: "Do not send the metric; show the request that would be sent.")
    static let anonymousID = Option.value(["--anonymous-id"], name: "ID", help: "The SDK's anonymous id on this device.", kind: .string,
                                          computed: "a random UUID") { UUID().uuidString.lowercased() }
    static let userID = Option.string("--user-id", name: "ID", help: "The identified user, if any.")
    static let cases = Option.string("--cases", name: "FILE", help: "Replay a table of taps and print a matrix (payloads/taps/cases.json).")
    static let json = Option.flag("--json", help: "Print the result as JSON.")

    static let options: [any OptionDeclaration] = [
        app, action, cold, warm, foreground, scene, attachments, collector, caFile, noMetrics, anonymousID, userID, cases, json,
    ]

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        if let cases = try args[Self.cases] {
            guard args.positionals.isEmpty else {
                throw UsageError("--cases replays a table; do not pass a payload file as well", fix: "drop \(args.positionals[0]) or --cases")
            }
            return try await OpenCaseMatrix.run(path: cases, app: try args[app].map(loadApp), json: args[json])
        }
        guard args.positionals.count == 1 else {
            throw UsageError(args.positionals.isEmpty ? "missing the payload file" : "one payload file at a time",
                             fix: "pushlab open payload.json --app app.json [--cold|--warm|--foreground]")
        }
        guard let appPath = try args[app] else {
            throw UsageError("missing --app", fix: "pass an app profile with a deepLinks section, e.g. --app payloads/apps/demo.json")
        }
        var app = try loadApp(appPath)
        var deepLinks = app.deepLinks ?? DeepLinkProfile()
        if args[scene] { deepLinks = deepLinks.adoptingUIScene() }
        app.deepLinks = deepLinks
        if let collector = try args[Self.collector] {
            guard let url = URL(string: collector), let scheme = url.scheme, ["http", "https"].contains(scheme), url.host != nil else {
                throw UsageError("--collector '\(collector)' is not an http(s) URL", fix: "e.g. --collector http://127.0.0.1:8080")
            }
            app.metricsBaseURL = collector
        }

        let payload = try loadPayload(args.positionals[0])
        let tap = Tap(action: TapAction(try args[action]), state: try launchState(args))
        let attachments = try args[Self.attachments].map { path -> NotificationAttachment in
            guard FileManager.default.fileExists(atPath: path) else {
                throw UsageError("--attachment \(path): no such file", fix: "pass the image file the NSE saved (<tmp>/cio_sdk/…)")
            }
            return NotificationAttachment(identifier: NotificationAttachment.sdkIdentifierPrefix + randomLetters(10), path: path)
        }

        let send = !args[noMetrics] && (args.isGiven(collector) || app.metricsBaseURL != nil)
        let transport = try send ? makeTransport(caFile: try args[caFile]) : nil
        let pipeline = EventPipeline(configuration: EventPipelineConfiguration(profile: app),
                                     transport: transport ?? UnsentTransport())
        let identity = PipelineIdentity(anonymousId: try args[anonymousID],
                                        userId: try args[userID])
        let handler = TapHandler(app: app, deepLinks: deepLinks, pipeline: pipeline, identity: identity)
        let outcome = await handler.handle(payload: payload, tap: tap, attachments: attachments)

        var metric = OpenMetricReport(sent: false, requests: await pipeline.pendingRequests(), uploads: [], note: nil)
        if outcome.openedEvent != nil {
            if send {
                let report = await pipeline.flush()
                metric = OpenMetricReport(sent: true, requests: report.attempts.map(\.request),
                                          uploads: report.attempts.map(\.outcome), note: nil)
            } else {
                metric.note = args[noMetrics]
                    ? "--no-metrics: not sent"
                    : "not sent: pass --collector URL or set metricsBaseURL in the profile to send it"
            }
        }
        await shutdown(transport)

        if args[json] {
            var shown = outcome
            if let recipient = shown.openedEvent?.recipient {
                shown.openedEvent?.recipient = DeviceToken.redacted(recipient)  // a device token, shortened as everywhere
            }
            emit(try renderJSON(OpenJSON(outcome: shown, metric: metric, scene: deepLinks.scene != nil)))
        } else {
            emit(OpenRendering.text(outcome, metric: metric, scene: deepLinks.scene != nil))
        }
        let metricFailed = metric.uploads.contains { !$0.isAccepted }
        let misconfigured = outcome.diagnostics.contains { $0.severity == .error }
        return metricFailed || misconfigured ? ExitStatus.failure : ExitStatus.success
    }

    static func loadApp(_ path: String) throws -> AppProfile {
        do {
            return try AppProfile.load(path: path)
        } catch {
            throw UsageError("--app \(error.reason)", fix: error.fix)
        }
    }

    /// The APNs payload of the file: the object itself, or an FCM v1 message's apns.payload.
    static func loadPayload(_ path: String) throws -> JSONValue {
        let bytes = try readInput(path, what: "payload file")
        let document: JSONDocument
        do {
            document = try JSONParser().parse(bytes)
        } catch {
            throw UsageError("\(path):\(error.line):\(error.column): \(error.message)", fix: error.fix)
        }
        let root = document.root
        guard root.objectValue != nil else {
            throw UsageError("\(path): the payload must be a JSON object", fix: "pass an APNs payload like {\"aps\":{…},\"CIO\":{…}}")
        }
        if let message = root["message"] {
            guard let apns = message["apns"]?["payload"], apns.objectValue != nil else {
                throw UsageError("\(path): /message/apns/payload is missing: an iOS device receives no Customer.io keys",
                                 fix: "put CIO-Delivery-ID, CIO-Delivery-Token and CIO.push under message.apns.payload")
            }
            return apns
        }
        return root
    }

    static func launchState(_ args: ParsedArguments) throws -> AppLaunchState {
        let chosen = [(cold, AppLaunchState.cold), (warm, .warm), (foreground, .foreground)].filter { args[$0.0] }
        guard chosen.count <= 1 else {
            throw UsageError("choose one of --cold, --warm, --foreground", fix: "the app is in exactly one state when the tap happens")
        }
        return chosen.first?.1 ?? .warm
    }

    static func randomLetters(_ n: Int) -> String {
        String((0..<n).map { _ in "abcdefghijklmnopqrstuvwxyz".randomElement()! })
    }
}

/// The transport for `--no-metrics` and dry runs: a flush through it is a bug, so it fails loudly.
struct UnsentTransport: HTTPTransport {
    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        throw HTTPClientError.protocolError("metrics are not sent in this mode")
    }
}

/// What happened to the opened metric.
struct OpenMetricReport: Encodable {
    var sent: Bool
    /// The requests sent (or, when not sent, that a flush would send), secrets redacted.
    var requests: [HTTPRequestSummary]
    var uploads: [UploadOutcome]
    var note: String?

    init(sent: Bool, requests: [HTTPRequestSummary], uploads: [UploadOutcome], note: String?) {
        self.sent = sent
        self.requests = requests.map(OpenSecrets.redacted)
        self.uploads = uploads
        self.note = note
    }

    enum CodingKeys: String, CodingKey { case sent, requests, results, note }
    func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(sent, forKey: .sent)
        try c.encode(requests, forKey: .requests)
        try c.encode(uploads.map(\.summary), forKey: .results)
        try c.encodeIfPresent(note, forKey: .note)
    }
}

struct OpenJSON: Encodable {
    var outcome: TapOutcome
    var metric: OpenMetricReport
    var scene: Bool
}

extension UploadOutcome {
    var isAccepted: Bool { if case .accepted = self { return true } else { return false } }
    /// 401: the collector did not take the app's credentials.
    var isUnauthorized: Bool {
        switch self {
        case .rejected(status: 401), .kept(.status(401)): return true
        default: return false
        }
    }
}

/// What `pushlab open` must not print from a metric request: the Authorization header is
/// redacted by the pipeline; the body's `writeKey` is the same CDP API key, and `device_id`
/// is a device token, shortened as in every other output.
enum OpenSecrets {
    private static let writeKey = try! NSRegularExpression(pattern: #"("writeKey"\s*:\s*")[^"]*(")"#)
    private static let deviceID = try! NSRegularExpression(pattern: #"("device_id"\s*:\s*")([^"]*)(")"#)

    static func redacted(_ request: HTTPRequestSummary) -> HTTPRequestSummary {
        var copy = request
        copy.body = redactBody(request.body)
        return copy
    }

    static func redactBody(_ body: String) -> String {
        var text = writeKey.stringByReplacingMatches(in: body, range: NSRange(body.startIndex..., in: body), withTemplate: "$1<redacted>$2")
        for match in deviceID.matches(in: text, range: NSRange(text.startIndex..., in: text)).reversed() {
            guard let range = Range(match.range(at: 2), in: text) else { continue }
            text.replaceSubrange(range, with: DeviceToken.redacted(String(text[range])))
        }
        return text
    }
}

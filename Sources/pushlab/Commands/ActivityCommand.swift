import Foundation
import PushAuth
import PushCore
import PushDevice
import PushHTTP

/// Shared by the `pushlab activity …` commands: the app profile, timeline rendering, the
/// emulator's `/admin/activities` calls.
enum ActivitySupport {
    static func profile(_ args: ParsedArguments) throws -> LiveActivityProfile {
        guard let path = args.value("--app") else { return LiveActivityProfile() }
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

    static let adminOptions: [OptionSpec] = [
        .value("--url", name: "URL", help: "The emulator's Google-host URL (pushlab serve prints it), e.g. https://127.0.0.1:8443."),
        .value("--ca-file", name: "PEM", help: "Trust this CA (certs/ca.pem for the emulator)."),
        .flag("--json", help: "Print the emulator's answer as JSON."),
    ]

    /// One `/admin/activities…` exchange; throws a usage error naming the field on a 4xx.
    static func admin(_ args: ParsedArguments, _ method: String, _ path: String, body: JSONValue? = nil) async throws -> JSONValue {
        let base = try args.required("--url", fix: "pass the URL `pushlab serve` printed for the Google host, e.g. --url https://127.0.0.1:8443")
        let client = try HTTPClient(configuration: HTTPClientConfiguration(caFile: args.value("--ca-file")))
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

/// `pushlab activity run`: a Live Activity on the virtual iPhone, pushed locally on an emulated clock.
enum ActivityRunCommand: Command {
    static let path = ["activity", "run"]
    static let summary = "Replay Live Activity pushes on the virtual iPhone: timeline and Lock Screen after each push."
    static let positionalUsage = "PUSH.json[@WHEN][/PRIORITY] …"
    static let discussion = """
        Each push file is applied as iOS applies it, on an emulated clock (no waiting): a start reaches \
        the app's push-to-start token; update and end reach the started activity (its push token, or \
        its channel with --channel). WHEN is +SECONDS after the clock's start or a UNIX time (default: \
        the push's own aps.timestamp); /5 sends it with apns-priority 5 (default 10).

        What iOS does and pushlab shows: pushes whose timestamp is not newer than the shown state are \
        dropped; stale-date turns the widget stale; end with dismissal-date removes it on time (no date: \
        within 4 hours); 8 hours after start the system ends it; a content-state over 4 KB or one that \
        does not decode into the profile's ContentState (--app, "liveActivities") is dropped although \
        APNs answered 200; priority-10 updates beyond the budget are throttled (Apple publishes no \
        numbers: pushlab's model is 10 immediate updates, one more every 6 minutes; 40 and 30 s with \
        frequentUpdates). --start-local starts the activity from the app instead of by push.

        Exit status: 0 every push applied, 1 a push was dropped or throttled, 2 bad usage or input.
        """
    static let options: [OptionSpec] = [
        .value("--app", name: "JSON", help: "App profile with a liveActivities block (attribute/content-state schema, frequentUpdates)."),
        .flag("--start-local", help: "Start the activity from the app (Activity.request) before the pushes."),
        .value("--attributes-type", name: "NAME", help: "--start-local: the ActivityAttributes type.", default: "the profile's first"),
        .value("--attributes", name: "JSON", help: "--start-local: file with the attributes object."),
        .value("--content-state", name: "JSON", help: "--start-local: file with the initial content-state."),
        .value("--channel", name: "ID", help: "Subscribe the locally started activity to this channel; updates then arrive as broadcasts."),
        .value("--at", name: "UNIX", help: "The emulated clock's start.", default: "the first push's timestamp"),
        .value("--until", name: "+SECONDS|UNIX", help: "Advance the clock to here after the last push (to see stale and dismissal)."),
        .flag("--json", help: "Print the timeline and the final state as JSON."),
    ]

    struct Step { var file: String; var when: String?; var priority: Int }

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        let profile = try ActivitySupport.profile(args)
        var steps: [Step] = []
        for raw in args.positionals {
            var spec = raw
            var priority = 10
            if let slash = spec.lastIndex(of: "/"), let p = Int(spec[spec.index(after: slash)...]), !spec[spec.index(after: slash)...].contains(".") {
                guard [1, 5, 10].contains(p) else { throw UsageError("\(raw): priority \(p) is not 1, 5 or 10") }
                priority = p
                spec = String(spec[..<slash])
            }
            var when: String?
            if let at = spec.lastIndex(of: "@") {
                when = String(spec[spec.index(after: at)...])
                spec = String(spec[..<at])
            }
            steps.append(Step(file: spec, when: when, priority: priority))
        }
        if steps.isEmpty && !args.flag("--start-local") {
            throw UsageError("nothing to do: give push files and/or --start-local", fix: "e.g. pushlab activity run payloads/live-activities/start.json payloads/live-activities/update.json@+60")
        }
        var pushes: [(Step, LiveActivityPush)] = []
        for step in steps {
            let bytes = try readInput(step.file, what: "push payload")
            guard let push = LiveActivityPush(bytes: bytes) else {
                throw UsageError("\(step.file): not a JSON payload with an aps object", fix: "see payloads/live-activities/ for samples")
            }
            pushes.append((step, push))
        }
        let origin = try args.int("--at") ?? pushes.first?.1.timestamp ?? 1_767_225_600
        func time(_ when: String?, default fallback: Int) throws -> Int {
            guard let when else { return fallback }
            if when.hasPrefix("+"), let s = Int(when.dropFirst()) { return origin + s }
            if let t = Int(when) { return t }
            throw UsageError("@\(when) is not a time", fix: "use @+SECONDS after the start, or @UNIX")
        }

        let host = LiveActivityHost(deviceName: "iPhone", bundleID: "app", profile: profile)
        let json = args.flag("--json")
        var all: [LiveActivityTimelineEvent] = []
        var frames: [JSONValue] = []
        func show(_ events: [LiveActivityTimelineEvent], title: String) {
            all += events
            if json {
                frames.append(.object(JSONObject([
                    JSONMember(key: "push", value: .string(title)),
                    JSONMember(key: "events", value: .array(JSONArray(events.map(\.json)))),
                    JSONMember(key: "lockScreen", value: .array(JSONArray(host.snapshot.map(\.json)))),
                ])))
            } else {
                emit(title)
                for e in events { emit(ActivitySupport.line(e, origin: origin)) }
                emit(ActivitySupport.lockScreen(host.snapshot))
            }
        }
        if args.flag("--start-local") {
            guard let stateFile = args.value("--content-state") else {
                throw UsageError("--start-local needs --content-state FILE", fix: "pass the initial ContentState as a JSON file")
            }
            let type = args.value("--attributes-type") ?? profile.activities.first?.attributesType ?? "Activity"
            let state = try jsonObject(stateFile, flag: "--content-state")
            let attributes = try args.value("--attributes").map { try jsonObject($0, flag: "--attributes") } ?? .object(JSONObject())
            show(host.startLocally(attributesType: type, attributes: attributes, contentState: state, at: origin,
                                   wantsPushToken: args.value("--channel") == nil, channelID: args.value("--channel")),
                 title: "t+0s local start (Activity.request)")
        }
        var last = origin
        for (step, push) in pushes {
            let at = try time(step.when, default: push.timestamp ?? last)
            last = max(last, at)
            let current = host.snapshot.last { $0.phase != .dismissed } ?? host.snapshot.last
            let target: LiveActivityHost.Target
            if push.event == .start { target = .pushToStart }
            else if let channel = current?.channelID { target = .channel(channel) }
            else { target = .activityToken(current?.pushToken ?? "none") }
            show(host.receive(push, priority: step.priority, target: target, at: at),
                 title: "t+\(at - origin)s \(step.file) (\(push.event?.rawValue ?? "no event"), priority \(step.priority))")
        }
        if let until = args.value("--until") {
            let at = try time(until, default: last)
            show(host.advance(to: at), title: "t+\(at - origin)s clock advanced")
        }
        if json {
            let out: JSONValue = .object(JSONObject([
                JSONMember(key: "origin", value: .isoDate(unixSeconds: origin)),
                JSONMember(key: "steps", value: .array(JSONArray(frames))),
                JSONMember(key: "activities", value: .array(JSONArray(host.snapshot.map(\.json)))),
            ]))
            emit(out.prettyPrinted())
        }
        let rejected = all.filter(\.isRejection).count
        if !json { emit(rejected == 0 ? "every push applied." : "\(rejected) push(es) not applied: see ✘ above.") }
        return rejected == 0 ? ExitStatus.success : ExitStatus.failure
    }

    static func jsonObject(_ file: String, flag: String) throws -> JSONValue {
        let bytes = try readInput(file, what: "JSON file")
        guard let doc = try? JSONDocument.parse(bytes), doc.root.objectValue != nil else {
            throw UsageError("\(flag) \(file): not a JSON object", fix: "the file must hold one JSON object")
        }
        return doc.root
    }
}

/// `pushlab activity device`: a virtual iPhone in the running emulator, and its push-to-start token.
enum ActivityDeviceCommand: Command {
    static let path = ["activity", "device"]
    static let summary = "Create a virtual iPhone in pushlab serve and print its push-to-start token."
    static let options: [OptionSpec] = [
        .value("--device", name: "NAME", help: "The phone's name, e.g. phone-1."),
    ] + ActivitySupport.adminOptions

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        let name = try args.required("--device", fix: "name the phone, e.g. --device phone-1")
        let answer = try await ActivitySupport.admin(args, "POST", "/admin/activities/devices",
                                                     body: .object(JSONObject([JSONMember(key: "name", value: .string(name))])))
        if args.flag("--json") { emit(answer.prettyPrinted()) } else { emit(answer["pushToStartToken"]?.stringValue ?? "") }
        return ExitStatus.success
    }
}

/// `pushlab activity start`: the app on a virtual iPhone starts an activity (`Activity.request`).
enum ActivityStartCommand: Command {
    static let path = ["activity", "start"]
    static let summary = "Start a Live Activity on a virtual iPhone in pushlab serve (optionally subscribed to a channel)."
    static let options: [OptionSpec] = [
        .value("--device", name: "NAME", help: "The phone (created on first use)."),
        .value("--attributes-type", name: "NAME", help: "The ActivityAttributes type."),
        .value("--attributes", name: "JSON", help: "File with the attributes object."),
        .value("--content-state", name: "JSON", help: "File with the initial content-state."),
        .value("--channel", name: "ID", help: "Subscribe to this broadcast channel (pushType: .channel(id))."),
        .flag("--push-token", help: "Ask for the activity's push token (pushType: .token)."),
    ] + ActivitySupport.adminOptions

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        let device = try args.required("--device", fix: "name the phone, e.g. --device phone-1")
        let type = try args.required("--attributes-type", fix: "the ActivityAttributes type, e.g. DeliveryAttributes")
        let state = try ActivityRunCommand.jsonObject(try args.required("--content-state", fix: "a JSON file with the initial state"), flag: "--content-state")
        var members = [JSONMember(key: "device", value: .string(device)), JSONMember(key: "attributesType", value: .string(type)),
                       JSONMember(key: "contentState", value: state)]
        if let file = args.value("--attributes") { members.append(JSONMember(key: "attributes", value: try ActivityRunCommand.jsonObject(file, flag: "--attributes"))) }
        if let channel = args.value("--channel") { members.append(JSONMember(key: "channel", value: .string(channel))) }
        if args.flag("--push-token") { members.append(JSONMember(key: "pushToken", value: .bool(true))) }
        let answer = try await ActivitySupport.admin(args, "POST", "/admin/activities", body: .object(JSONObject(members)))
        if args.flag("--json") { emit(answer.prettyPrinted()); return ExitStatus.success }
        for e in answer["events"]?.arrayValue ?? JSONArray() {
            emit("\(device): \(e["event"]?.stringValue ?? "") \(e["activity"]?.stringValue ?? "") \(e["detail"]?.stringValue ?? "")")
        }
        return ExitStatus.success
    }
}

/// `pushlab activity list`: every virtual iPhone's activities in pushlab serve.
enum ActivityListCommand: Command {
    static let path = ["activity", "list"]
    static let summary = "Show the Live Activities on the virtual iPhones of pushlab serve (Lock Screen state)."
    static let options: [OptionSpec] = ActivitySupport.adminOptions

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        let answer = try await ActivitySupport.admin(args, "GET", "/admin/activities")
        if args.flag("--json") { emit(answer.prettyPrinted()); return ExitStatus.success }
        for device in answer["devices"]?.arrayValue ?? JSONArray() {
            let name = device["name"]?.stringValue ?? "?"
            let activities = device["activities"]?.arrayValue ?? JSONArray()
            if activities.isEmpty { emit("\(name): no Live Activity") }
            for a in activities {
                let state = a["contentState"].map { String(decoding: $0.minifiedBytes(), as: UTF8.self) } ?? "{}"
                emit("\(name): \(a["id"]?.stringValue ?? "") \(a["attributesType"]?.stringValue ?? "") [\(a["phase"]?.stringValue ?? "")] \(state)")
            }
        }
        return ExitStatus.success
    }
}

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
    static let options: [OptionSpec] = [
        .value("--app", name: "JSON", help: "App profile with liveActivities.lifecycle and widgetURLHandlers."),
        .flag("--cold", help: "The app was not running (the default)."),
        .flag("--warm", help: "The app was running."),
        .value("--collector", name: "URL", help: "Post the opened metrics to this metrics host (e.g. http://127.0.0.1:8081 or https://localhost:8443)."),
        .value("--ca-file", name: "FILE", help: "Trust this CA (PEM) for the collector, e.g. certs/ca.pem."),
        .flag("--json", help: "Print the outcome as JSON."),
    ]

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        guard args.positionals.count == 1, let url = args.positionals.first else {
            throw UsageError("give one URL, the widget's tap URL", fix: "e.g. pushlab activity tap 'cio-live-activity://open?cio_delivery_id=D1&cio_redirect=myapp://orders/42' --app payloads/apps/live.json")
        }
        if args.flag("--cold") && args.flag("--warm") { throw UsageError("give --cold or --warm, not both") }
        guard args.value("--app") != nil else { throw UsageError("missing --app PROFILE", fix: "e.g. --app payloads/apps/live.json") }
        let profile = try ActivitySupport.profile(args)
        let outcome = LiveActivityTapReplay.replay(url: url, profile: profile, launch: args.flag("--warm") ? .warm : .cold)
        let upload = try await postOpened(outcome, args: args)
        if args.flag("--json") {
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
        guard let collector = args.value("--collector") else { return nil }
        guard let u = URL(string: collector), ["http", "https"].contains(u.scheme ?? ""), u.host != nil else {
            throw UsageError("--collector '\(collector)' is not an http(s) URL", fix: "e.g. --collector http://127.0.0.1:8081 (a 'pushlab collector')")
        }
        guard let path = args.value("--app") else { return nil }
        var app: AppProfile
        do { app = try AppProfile.load(path: path) } catch { throw UsageError("--app \(error.reason)", fix: error.fix) }
        app.metricsBaseURL = collector
        let client = try HTTPClient(configuration: HTTPClientConfiguration(caFile: args.value("--ca-file")))
        let pipeline = LaunchRecovery.pipeline(for: app, transport: client)
        for event in outcome.openedEvents(identity: PipelineIdentity(anonymousId: "pushlab-activity-tap")) { await pipeline.enqueue(event) }
        let flush = await pipeline.flush()
        await client.shutdown()
        return (flush.attempts.map { "POST \($0.request.url) → \($0.outcome.summary)" }, flush.sentEvents, flush.remaining)
    }
}

import Foundation
import PushAuth
import PushCore
import PushDevice
import PushHTTP

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

        What iOS does and pushlab shows: pushes whose timestamp is older than the shown state (or more \
        than 8 hours ahead) are dropped, one of the same second is applied; stale-date turns the widget stale; end with dismissal-date removes it on time (no date: \
        within 4 hours); 8 hours after start the system ends it; a content-state over 4 KB or one that \
        does not decode into the profile's ContentState (--app, "liveActivities") is dropped although \
        APNs answered 200; priority-10 updates beyond the budget are throttled (Apple publishes no \
        numbers: pushlab's model is 10 immediate updates, one more every 6 minutes; 40 and 30 s with \
        frequentUpdates). --start-local starts the activity from the app instead of by push.

        Exit status: 0 every push applied, 1 a push was dropped or throttled, 2 bad usage or input.
        """
    static let app = Option.string("--app", name: "JSON", help: "App profile with a liveActivities block (attribute/content-state schema, frequentUpdates).")
    static let startLocal = Option.flag("--start-local", help: "Start the activity from the app (Activity.request) before the pushes.")
    static let attributesType = Option.string("--attributes-type", name: "NAME", help: "--start-local: the ActivityAttributes type.", described: "the profile's first")
    static let attributes = Option.string("--attributes", name: "JSON", help: "--start-local: file with the attributes object.")
    static let contentState = Option.string("--content-state", name: "JSON", help: "--start-local: file with the initial content-state.")
    static let channel = Option.string("--channel", name: "ID", help: "Subscribe the locally started activity to this channel; updates then arrive as broadcasts.")
    static let at = Option.value(["--at"], name: "UNIX", help: "The emulated clock's start.", kind: .int(), described: "the first push's timestamp")
    static let until = Option.string("--until", name: "+SECONDS|UNIX", help: "Advance the clock to here after the last push (to see stale and dismissal).")
    static let json = Option.flag("--json", help: "Print the timeline and the final state as JSON.")
    static let options: [any OptionDeclaration] = [app, startLocal, attributesType, attributes, contentState, channel, at, until, json]

    struct Step { var file: String; var when: String?; var priority: Int }

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        let profile = try ActivitySupport.profile(try args[app])
        let steps = try args.positionals.map(step)
        if steps.isEmpty && !args[startLocal] {
            throw UsageError("nothing to do: give push files and/or --start-local", fix: "e.g. pushlab activity run payloads/live-activities/start.json payloads/live-activities/update.json@+60")
        }
        let pushes = try steps.map { step in (step, try push(step)) }
        let origin = try args[at] ?? pushes.first?.1.timestamp ?? 1_767_225_600
        func time(_ when: String?, default fallback: Int) throws -> Int {
            guard let when else { return fallback }
            if when.hasPrefix("+"), let s = Int(when.dropFirst()) { return origin + s }
            if let t = Int(when) { return t }
            throw UsageError("@\(when) is not a time", fix: "use @+SECONDS after the start, or @UNIX")
        }

        let host = LiveActivityHost(deviceName: "iPhone", bundleID: "app", profile: profile)
        let json = args[Self.json]
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
        if args[startLocal] {
            guard let stateFile = try args[contentState] else {
                throw UsageError("--start-local needs --content-state FILE", fix: "pass the initial ContentState as a JSON file")
            }
            let type = try args[attributesType] ?? profile.activities.first?.attributesType ?? "Activity"
            let state = try jsonObject(stateFile, flag: "--content-state")
            let attributes = try args[Self.attributes].map { try jsonObject($0, flag: "--attributes") } ?? .object(JSONObject())
            show(host.startLocally(attributesType: type, attributes: attributes, contentState: state, at: origin,
                                   wantsPushToken: !args.isGiven(channel), channelID: try args[channel]),
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
        if let until = try args[Self.until] {
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

    /// `FILE[@WHEN][/PRIORITY]`: the push file, when it arrives (`@+SECONDS` or `@UNIX`) and its priority.
    static func step(_ raw: String) throws -> Step {
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
        return Step(file: spec, when: when, priority: priority)
    }

    /// The step's push payload, read and parsed.
    static func push(_ step: Step) throws -> LiveActivityPush {
        let bytes = try readInput(step.file, what: "push payload")
        guard let push = LiveActivityPush(bytes: bytes) else {
            throw UsageError("\(step.file): not a JSON payload with an aps object", fix: "see payloads/live-activities/ for samples")
        }
        return push
    }

    static func jsonObject(_ file: String, flag: String) throws -> JSONValue {
        let bytes = try readInput(file, what: "JSON file")
        guard let doc = try? JSONDocument.parse(bytes), doc.root.objectValue != nil else {
            throw UsageError("\(flag) \(file): not a JSON object", fix: "the file must hold one JSON object")
        }
        return doc.root
    }
}

import Foundation
import PushAuth
import PushCore
import PushHTTP
import PushSend

/// `pushlab send apns --live-activity start|update|end …` builds the Live Activity `aps` from
/// flags (on top of a payload file when one is given), and `--channel ID` sends it as a
/// broadcast (docs/specs/apns.md "Live Activities and broadcast channels"; docs/live-activities.md).
enum LiveActivityFlags {
    static let event = Option.value(["--live-activity"], name: "EVENT", help: "Build a Live Activity push: start, update or end (push type liveactivity, topic .push-type.liveactivity).",
                                    kind: ValueKind<LiveActivityEvent>(parse: { raw, flag in
                                        guard let event = LiveActivityEvent(rawValue: raw) else {
                                            throw UsageError("\(flag) \(raw) is not an event", fix: "use start, update or end")
                                        }
                                        return event
                                    }, text: \.rawValue, example: "update"))
    static let contentState = Option.string("--content-state", name: "JSON", help: "File with the content-state object (your ContentState's fields).")
    static let attributesType = Option.string("--attributes-type", name: "NAME", help: "start: the ActivityAttributes type name.")
    static let attributes = Option.string("--attributes", name: "JSON", help: "start: file with the attributes object (the static fields).")
    static let timestamp = Option.int("--timestamp", name: "UNIX", help: "aps.timestamp (default: now); iOS drops pushes older than what it shows.", in: 0...Int(Int32.max) * 4)
    static let staleDate = Option.string("--stale-date", name: "UNIX|+SECONDS", help: "When the widget turns stale.")
    static let dismissalDate = Option.string("--dismissal-date", name: "UNIX|+SECONDS|now", help: "end: when the ended activity leaves the Lock Screen.")
    static let relevanceScore = Option.double("--relevance-score", name: "N", help: "Orders several activities (highest in the Dynamic Island).", in: 0...1)
    static let inputPushToken = Option.flag("--input-push-token", help: "start: ask iOS for the new activity's update token (input-push-token 1).")
    static let inputPushChannel = Option.string("--input-push-channel", name: "ID", help: "start: subscribe the started activity to this broadcast channel.")
    static let channel = Option.string("--channel", name: "ID", help: "Broadcast to every activity subscribed to this channel (POST /4/broadcasts/apps/<bundle>) instead of --token.")

    /// The flags that only mean something with `--live-activity`.
    private static let eventFlags: [any OptionDeclaration] = [contentState, attributesType, attributes, timestamp, staleDate, dismissalDate,
                                                              relevanceScore, inputPushToken, inputPushChannel]
    static let options: [any OptionDeclaration] = [event] + eventFlags + [channel]

    /// The payload the flags describe, or nil when `--live-activity` is not given.
    static func payload(_ args: ParsedArguments) throws -> (bytes: [UInt8], source: String)? {
        let used = eventFlags.first { args.isGiven($0) }
        guard let event = try args[Self.event] else {
            if let used { throw UsageError("\(used.spec.primary) needs --live-activity start|update|end") }
            return nil
        }
        var top = JSONObject()
        var source = "<live activity flags>"
        if let file = args.positionals.first {
            let bytes = try readInput(file, what: "payload")
            guard let doc = try? JSONDocument.parse(bytes), let object = doc.root.objectValue else {
                throw UsageError("\(file): not a JSON object", fix: "pass a payload object, or leave the file out and use the flags alone")
            }
            top = object
            source = file
        }
        var aps = top["aps"]?.objectValue ?? JSONObject()
        let now = Int(Date().timeIntervalSince1970)
        aps["event"] = .string(event.rawValue)
        if let t = try args[timestamp] { aps["timestamp"] = .number(JSONNumber(t)) }
        else if aps["timestamp"] == nil { aps["timestamp"] = .number(JSONNumber(now)) }
        if let file = try args[contentState] { aps["content-state"] = try object(file, flag: "--content-state") }
        if let type = try args[attributesType] { aps["attributes-type"] = .string(type) }
        if let file = try args[attributes] { aps["attributes"] = try object(file, flag: "--attributes") }
        if let v = try args[staleDate] { aps["stale-date"] = .number(JSONNumber(try date(v, flag: "--stale-date", now: now))) }
        if let v = try args[dismissalDate] { aps["dismissal-date"] = .number(JSONNumber(try date(v, flag: "--dismissal-date", now: now))) }
        if let score = try args[relevanceScore] { aps["relevance-score"] = .number(JSONNumber(score)) }
        if args[inputPushToken] { aps["input-push-token"] = .number(JSONNumber(1)) }
        if let channel = try args[inputPushChannel] { aps["input-push-channel"] = .string(channel) }
        let title = try args[PayloadBuilderFlags.title], body = try args[PayloadBuilderFlags.body]
        if title != nil || body != nil {
            var alert = aps["alert"]?.objectValue ?? JSONObject()
            if let title { alert["title"] = .string(title) }
            if let body { alert["body"] = .string(body) }
            aps["alert"] = .object(alert)
        }
        top["aps"] = .object(aps)
        return (JSONValue.object(top).minifiedBytes(), source)
    }

    private static func object(_ file: String, flag: String) throws -> JSONValue {
        let bytes = try readInput(file, what: "JSON file")
        guard let doc = try? JSONDocument.parse(bytes), doc.root.objectValue != nil else {
            throw UsageError("\(flag) \(file): not a JSON object", fix: "the file must hold one JSON object, e.g. {\"status\": \"cooking\"}")
        }
        return doc.root
    }

    /// UNIX seconds, `+SECONDS` from now, or `now`.
    private static func date(_ raw: String, flag: String, now: Int) throws -> Int {
        if raw == "now" { return now }
        if raw.hasPrefix("+"), let offset = Int(raw.dropFirst()), offset >= 0 { return now + offset }
        if let value = Int(raw), value >= 0 { return value }
        throw UsageError("\(flag) \(raw) is not a date", fix: "give UNIX seconds (e.g. 1767229200), +SECONDS from now (+900), or now")
    }

    /// `send apns --channel ID`: pre-flight (a channel carries update and end only), then one
    /// broadcast request.
    static func broadcast(_ args: ParsedArguments, channelID: String) async throws -> Int32 {
        if args.isGiven(SendAPNsCommand.token) || args.isGiven(SendSupport.tokens) {
            throw UsageError("give --channel (a broadcast) or --token/--tokens (device pushes), not both")
        }
        if !BroadcastChannelAPI.isWellFormedChannelID(channelID) {
            throw UsageError("--channel \(channelID) is not a base64 channel id", fix: "copy the id `pushlab channels create` printed")
        }
        let push = try SendAPNsCommand.preparePush(args)
        guard let topic = push.topic else { throw UsageError("missing --topic (the app's bundle id)") }
        let bundle = String(topic.dropLast(topic.hasSuffix(APNsPushType.liveactivity.topicSuffix) ? APNsPushType.liveactivity.topicSuffix.count : 0))
        if push.pushType != .liveactivity {
            throw UsageError("a broadcast carries Live Activity pushes only (push type \(push.pushType.rawValue))",
                             fix: "use --live-activity update|end, or a payload with aps.event")
        }
        if push.validated, let la = LiveActivityPush(bytes: push.payload) {
            if la.event == .start {
                throw PreflightRefusal(message: "a broadcast cannot start activities: push-to-start goes to each device's push-to-start token (--token); channels carry update and end")
            }
            if la.inputPushChannel != nil || la.inputPushToken {
                throw PreflightRefusal(message: "input-push-token / input-push-channel belong to a start sent to a device, not to a broadcast")
            }
        }
        let endpoint = try SendAPNsCommand.endpoint(args)
        // apns-expiration 0 unless given: No-Storage channels accept nothing else.
        guard let (_, requestID) = try await ChannelCommandSupport.call(
            args, what: "broadcast", push: endpoint, management: ChannelManagementEndpoint(baseURL: endpoint.baseURL), {
                await $0.broadcast(bundleID: bundle, channelID: channelID, payload: push.payload, priority: push.priority,
                                   expiration: push.expiration ?? 0)
            }) else { return ExitStatus.failure }
        if args[SendSupport.json] {
            emit(ChannelCommandSupport.jsonLine(["outcome": "accepted", "channel": channelID, "bundle_id": bundle, "request_id": requestID]))
        } else {
            emit("✔ broadcast accepted for channel \(channelID)\(requestID.map { " (apns-request-id \($0))" } ?? "")")
        }
        return ExitStatus.success
    }
}

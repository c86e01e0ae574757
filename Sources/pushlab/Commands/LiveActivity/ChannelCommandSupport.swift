import Foundation
import PushAuth
import PushCore
import PushHTTP
import PushSend

/// What every `pushlab channels …` command shares: the app, the credentials, the endpoint.
enum ChannelCommandSupport {
    static let bundleIDOption = Option.string("--bundle-id", name: "BUNDLE", help: "The app's bundle id (or APNS_TOPIC), without a push-type suffix.", env: "APNS_TOPIC")
    static let sandbox = Option.flag("--sandbox", help: "api-manage-broadcast.sandbox.push.apple.com:2195 (development builds).")
    static let production = Option.flag("--production", help: "api-manage-broadcast.push.apple.com:2196 (the default).")
    static let url = Option.string("--url", name: "URL", help: "Any server speaking the channel API, e.g. the emulator's APNs URL https://127.0.0.1:2197.")
    static let caFile = Option.string("--ca-file", name: "PEM", help: "Trust this CA instead of the system store (certs/ca.pem for the emulator).")
    static let timeout = Option.duration("--timeout", help: "Deadline of the request.", default: .seconds(30))
    static let json = Option.flag("--json", help: "Print the result as JSON.")
    static let verbose = Option.flag("--verbose", "-v", help: "Show the request and answer (bearer redacted) on stderr.")
    static let commonOptions: [any OptionDeclaration] = [bundleIDOption] + APNsCredentialFlags.withEnvironment.options + [
        sandbox, production, url, caFile, timeout, json, verbose,
    ]
    static let channelOption = Option.string("--channel", name: "ID", help: "The channel id (base64) that create printed.")
    static let discussion = """
        Broadcast channels (iOS 18) carry one Live Activity update to every activity subscribed to the \
        channel. Apple manages them on api-manage-broadcast.(sandbox.)push.apple.com (ports 2195 and 2196) \
        with the same .p8 provider token as pushes; the app id needs the Broadcast capability. A channel \
        outlives its activities: delete it when the event is over (at most 10,000 per environment). \
        See docs/live-activities.md.

        Exit status: 0 done, 1 APNs refused (the reason and its fix are printed), 2 bad usage or input.
        """

    static func bundleID(_ args: ParsedArguments) throws -> String {
        let bundle = try args.required(bundleIDOption, fix: "pass the app's bundle id, e.g. --bundle-id io.pushlab.demo")
        if let suffix = APNsPushType.suffix(of: bundle) {
            throw UsageError("--bundle-id \(bundle) ends with the push-type suffix \(suffix)", fix: "pass the bare bundle id: \(bundle.dropLast(suffix.count))")
        }
        return bundle
    }

    static func channelID(_ args: ParsedArguments) throws -> String {
        guard let id = try args[channelOption] else {
            throw UsageError("missing --channel ID", fix: "pass the id `pushlab channels create` printed (or see `pushlab channels list`)")
        }
        if !BroadcastChannelAPI.isWellFormedChannelID(id) {
            throw UsageError("--channel \(id) is not a base64 channel id", fix: "copy the id exactly as create or list printed it")
        }
        return id
    }

    static func endpoint(_ args: ParsedArguments) throws -> ChannelManagementEndpoint {
        let choices = [args[sandbox], args[production], args.isGiven(url)].filter { $0 }.count
        if choices > 1 { throw UsageError("give one of --sandbox, --production, --url") }
        if let url = try args[Self.url] {
            do { return try .custom(url) } catch { throw UsageError("\(error)") }
        }
        return args[sandbox] ? .sandbox : .production
    }

    /// The client with the push endpoint `push` (broadcasts) and an HTTP/2 client for `args`.
    static func client(_ args: ParsedArguments, push: APNsEndpoint? = nil,
                       management given: ChannelManagementEndpoint? = nil) throws -> (BroadcastChannelClient, HTTPClient) {
        let management = try given ?? endpoint(args)
        let key = try SendAPNsCommand.loadKey(args)
        let caFile = try SendSupport.caFile(try args[Self.caFile])
        let timeout = try args[Self.timeout]
        let http = try HTTPClient(configuration: HTTPClientConfiguration(caFile: caFile, maxConcurrentStreams: 1, maxConnectionsPerHost: 1,
                                                                         requestTimeout: timeout + .seconds(5)))
        let pushEndpoint = try push ?? APNsEndpoint.custom(management.baseURL)
        let client = BroadcastChannelClient(management: management, push: pushEndpoint, transport: http,
                                            credential: ProviderTokenCache(key: key), requestTimeout: timeout,
                                            log: SendSupport.verboseLog(args))
        return (client, http)
    }

    /// One channel-management call: makes the client, runs `body`, shuts the client down
    /// (awaited, before anything is printed) and reports a refusal or failure. Returns the
    /// success's value and request id, or nil when the command must exit 1 (already reported).
    static func call<Value>(_ args: ParsedArguments, what: String, push: APNsEndpoint? = nil, management: ChannelManagementEndpoint? = nil,
                            _ body: (BroadcastChannelClient) async -> ChannelAnswer<Value>) async throws -> (value: Value, requestID: String?)? {
        let (client, http) = try client(args, push: push, management: management)
        let answer = await body(client)
        await http.shutdown()
        if report(answer, what: what, json: args[ChannelCommandSupport.json]) != nil { return nil }
        guard case .success(let value, let requestID) = answer else { return nil }
        return (value, requestID)
    }

    /// Prints a refusal or failure and returns exit status 1; nil for a success.
    static func report<Value>(_ answer: ChannelAnswer<Value>, what: String, json: Bool) -> Int32? {
        switch answer {
        case .success: return nil
        case .rejected(let status, let reason, let requestID):
            let name = reason?.rawValue ?? "HTTP\(status)"
            let fix = reason?.fix ?? "APNs answered HTTP \(status) without a reason"
            if json {
                emit(jsonLine(["outcome": "rejected", "status": String(status), "reason": name, "fix": fix, "request_id": requestID]))
            } else {
                printError("pushlab channels: \(what) refused: \(status) \(name)\(requestID.map { " (apns-request-id \($0))" } ?? "")\n  fix: \(fix)")
            }
            return ExitStatus.failure
        case .failed(let error):
            if json { emit(jsonLine(["outcome": "failed", "error": error.description])) } else {
                printError("pushlab channels: \(what) failed: \(error)\n  fix: check --url/--sandbox, --ca-file and the network")
            }
            return ExitStatus.failure
        }
    }

    static func jsonLine(_ fields: [String: String?]) -> String {
        let members = fields.keys.sorted().compactMap { key in fields[key]!.map { JSONMember(key: key, value: .string($0)) } }
        return String(decoding: JSONValue.object(JSONObject(members)).minifiedBytes(), as: UTF8.self)
    }
}

import Foundation
import PushAuth
import PushCore
import PushHTTP
import PushSend

/// `pushlab send apns`: one push, or one payload to a file of tokens, over HTTP/2 with a .p8 key.
enum SendAPNsCommand: Command {
    static let path = ["send", "apns"]
    static let summary = "Send a push through APNs (token auth, .p8 key) to one token or a file of tokens."
    static let positionalUsage = "[payload.json | -]"
    static let discussion = """
        The payload comes from a file (a .json payload or a simulator .apns file; - reads stdin) or \
        from the builder flags (--title, --body, --image, --link …). It is validated before sending; \
        --no-validate sends it anyway. The push type is inferred from the payload unless --push-type \
        is given, the topic gets the push type's suffix, and an apns-id is generated when absent.

        Live Activities: --live-activity start|update|end builds the aps (timestamp now unless \
        --timestamp; --content-state, --attributes-type/--attributes for start, --stale-date, \
        --dismissal-date, --relevance-score, --input-push-token, --input-push-channel; --title/--body \
        become the alert) on top of the payload file if one is given. Send a start to the app's \
        push-to-start token and updates to the activity's push token — or, with --channel ID, \
        broadcast an update or end to every subscribed activity (apns-expiration 0 unless given). \
        See docs/live-activities.md.

        Credentials fall back to APNS_KEY_PATH, APNS_KEY_ID, APNS_TEAM_ID and APNS_TOPIC; the key id \
        is read from an AuthKey_<KEYID>.p8 file name. Key material and tokens are never printed.

        With --tokens FILE the same payload goes to every token, --concurrency at a time over \
        --connections HTTP/2 connections; results stream to --out, dead tokens to --prune-file. \
        Transient failures (5xx, 429, lost connections) are retried with backoff; rejections \
        such as BadDeviceToken or Unregistered never are.

        Exit status: 0 accepted (bulk: all accepted), 1 rejected or failed, 2 bad usage or input.
        """
    static let token = Option.string("--token", name: "HEX", help: "The device token (hex).")
    static let credentials = APNsCredentialFlags.withEnvironment
    static let topic = Option.string("--topic", name: "BUNDLE", help: "The app's bundle id (or APNS_TOPIC); the push type's suffix is added.", env: "APNS_TOPIC")
    static let sandbox = Option.flag("--sandbox", help: "Use api.sandbox.push.apple.com (development builds).")
    static let production = Option.flag("--production", help: "Use api.push.apple.com (the default).")
    static let url = Option.string("--url", name: "URL", help: "Any APNs-speaking server, e.g. the emulator's APNs host https://127.0.0.1:2197 (pushlab serve --apns-port).")
    static let port = Option.int("--port", name: "PORT", help: "443, or 2197 where firewalls block 443 (ignored with --url).", in: 1...65535, default: 443)
    static let pushType = Option.value(["--push-type"], name: "TYPE", help: "alert, background, voip, liveactivity, … (default: from the payload).",
                                       kind: ValueKind<APNsPushType>(parse: { raw, flag in
                                           guard let type = APNsPushType(rawValue: raw) else {
                                               throw UsageError("\(flag) \(raw) is not an APNs push type",
                                                                fix: "use one of " + APNsPushType.allCases.map(\.rawValue).joined(separator: ", "))
                                           }
                                           return type
                                       }, text: \.rawValue, example: "alert"))
    static let priority = Option.value(["--priority"], name: "N", help: "10 immediate, 5 power-considerate, 1 lowest (default: 10; background 5).", kind: .int())
    static let expiration = Option.value(["--expiration"], name: "UNIX", help: "Store until this UNIX time; 0 = deliver once.", kind: .int())
    static let collapseID = Option.string("--collapse-id", name: "ID", help: "Replace an earlier push with the same id (≤ 64 bytes).")
    static let apnsID = Option.string("--apns-id", name: "UUID", help: "Request id (lowercase UUID; default: generated).")

    static let options: [any OptionDeclaration] = [token] + credentials.options + APNsCertificateFlags.options + [
        topic, sandbox, production, url, port, pushType, priority, expiration, collapseID, apnsID,
    ] + SendSupport.builderOptions + LiveActivityFlags.options + SendSupport.connectionOptions + [SendSupport.transportOption] + SendSupport.bulkOptions
        + SendSupport.reportingOptions + ProfileDefaults.options

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        if let channel = try args[LiveActivityFlags.channel] { return try await LiveActivityFlags.broadcast(args, channelID: channel) }
        // Everything that can be wrong with the input is checked before any connection.
        let single = try args[token]
        let bulk = try args[SendSupport.tokens]
        if single != nil && bulk != nil { throw UsageError("give --token or --tokens, not both") }
        if single == nil && bulk == nil {
            throw UsageError("missing --token (one device token) or --tokens FILE (many)", fix: "e.g. --token 3a5f…e9 (64 hex digits)")
        }
        let endpoint = try endpoint(args)
        let certificate = try APNsCertificateFlags.load(args)
        let credential: any APNsCredential = try certificate.map { _ in CertificateCredential() } ?? ProviderTokenCache(key: loadKey(args))
        let push = try preparePush(args)
        if let single, push.validated, let problem = DeviceToken.problem(single, for: .apns) {
            throw UsageError("--token: \(problem.message)", fix: problem.fix)
        }
        if let certificate, push.validated { try APNsCertificateFlags.preflight(certificate, topic: push.request.topic, endpoint: endpoint) }

        let history = try SendSupport.openHistory(args)
        defer { history?.close() }
        let files = try bulk.map { try SendSupport.openBulk(args, tokensPath: $0, history: history, endpoint: endpoint.baseURL) }

        let clients = try SendSupport.sendClients(args, bulk: bulk != nil, clientCertificate: certificate?.clientCertificate)
        let client = APNsClient(endpoint: endpoint, transport: SendSupport.transport(clients),
                                credential: credential, retry: try SendSupport.retryPolicy(args),
                                log: SendSupport.verboseLog(args), requestTimeout: try args[SendSupport.timeout])
        let status: Int32
        if let files {
            // One APNsClient per connection: push i goes out on clients[i % N], from its loop.
            let perConnection = clients.map { http in
                var c = client
                c.transport = http
                return c
            }
            status = try await SendSupport.runBulk(args, provider: .apns, files: files, clients: clients) { token, index in
                await SendSupport.client(perConnection, for: index).send(push, to: token, index: index).report
            }
        } else {
            let result = await client.send(push, to: single!)
            let report = result.report
            SendSupport.record(report, in: history, endpoint: endpoint.baseURL)
            var extra: [String: String] = [:]
            var fix: String?
            switch result.outcome {
            case .accepted(let a): if let u = a.uniqueID { extra["apns_unique_id"] = u }
            case .rejected(let r): fix = r.fix
            case .failed(let e): fix = e.description.contains("--ca-file") ? nil : "check --url/--sandbox and the network; the push was retried \(result.attempts - 1) time(s)"
            case .notSent: fix = nil
            }
            status = try SendSupport.printSingle(report, fix: fix, extra: extra, json: args[SendSupport.json])
        }
        for c in clients { await c.shutdown() }
        return status
    }

    static func endpoint(_ args: ParsedArguments) throws -> APNsEndpoint {
        let given = [("--sandbox", args[sandbox]), ("--production", args[production]),
                     ("--url", args.isGiven(url))].filter(\.1).map(\.0)
        if given.count > 1 {
            throw UsageError("\(given.joined(separator: " and ")) both choose the APNs host; give only one of them",
                             fix: "--sandbox for development builds, --production for TestFlight/App Store builds, --url for any other server such as the emulator (https://127.0.0.1:2197)")
        }
        if let url = try args[Self.url] {
            do { return try .custom(url) } catch { throw UsageError("\(error)") }
        }
        let port = try args[Self.port]
        return args[sandbox] ? .sandbox(port: port) : .production(port: port)
    }

    static func loadKey(_ args: ParsedArguments) throws -> APNsAuthKey {
        let path = try args.required(credentials.key, fix: "pass the AuthKey_<KEYID>.p8 downloaded from the Apple developer account")
        let teamID = try args.required(credentials.teamID, fix: "your 10-character team id (developer account, Membership)")
        // A missing file is the first thing to say, before what its name implies (the key id).
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw UsageError("--key \(path): no such file", fix: "check the path; the .p8 is downloaded once from developer.apple.com > Keys")
        }
        if isDirectory.boolValue {
            let keys = ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).filter { $0.hasSuffix(".p8") }.sorted()
            throw UsageError("--key \(path): is a directory, expected the .p8 key file",
                             fix: keys.isEmpty ? "pass the AuthKey_<KEYID>.p8 file itself" : "pass the key file, e.g. --key \((path as NSString).appendingPathComponent(keys[0]))")
        }
        let keyID = try args[credentials.keyID]
        let key: APNsAuthKey
        do {
            key = try APNsAuthKey.load(path: path, keyID: keyID, teamID: teamID)
        } catch {
            // Built from the error's own fields once: the flag, the file, the reason, one fix.
            switch error {
            case .invalidKeyID: throw UsageError("--key-id: \(error.reason)", fix: error.fix)
            case .missingTeamID, .invalidTeamID: throw UsageError("--team-id: \(error.reason)", fix: error.fix)
            default: throw UsageError("--key \(error.source ?? path): \(error.reason)", fix: error.fix)
            }
        }
        KeyFilePermissions.warnIfShared(path, flag: "--key")
        return key
    }

    /// A Live Activity push whose timestamp cannot (or may not) win on the phone says so: iOS
    /// applies nothing older than the state it shows (docs/specs/apns.md), and APNs answers 200
    /// either way, so the sender is the last place a user can hear it.
    static func warnAboutTimestamp(_ timestamp: Int, source: String, now: Int = Int(Date().timeIntervalSince1970)) {
        if let problem = LiveActivityLimits.timestampProblem(timestamp, now: now) {
            printError("pushlab send apns: warning: \(source) /aps/timestamp: \(problem); this push cannot win (omit the timestamp: pushlab stamps now)")
        } else if timestamp < now - 60 {
            printError("pushlab send apns: warning: \(source) /aps/timestamp: \(timestamp) is \(now - timestamp) s in the past; the phone ignores it if the activity already shows a newer state (omit the timestamp or pass --timestamp \(now))")
        }
    }

    static func preparePush(_ args: ParsedArguments) throws -> PreparedAPNsPush {
        let liveActivity = try LiveActivityFlags.payload(args)
        var (bytes, source) = try liveActivity ?? SendSupport.payloadBytes(args, fcm: false)
        let validate = !args[SendSupport.noValidate]
        // A simulator .apns file names its bundle id; it is a payload otherwise.
        var fileTopic: String?
        if let doc = try? JSONDocument.parse(bytes), case .object(var top) = doc.root,
           let bundle = top["Simulator Target Bundle"]?.stringValue {
            fileTopic = bundle
            top.members.removeAll { $0.key == "Simulator Target Bundle" }
            bytes = JSONValue.object(top).minifiedBytes()
        }
        var options = APNsPushOptions()
        options.topic = try args[topic] ?? fileTopic
        if liveActivity != nil { options.pushType = .liveactivity }
        if let type = try args[pushType] { options.pushType = type }
        options.priority = try args[priority]
        options.expiration = try args[expiration]
        options.collapseID = try args[collapseID]
        options.apnsID = try args[apnsID]
        do {
            let push = try PreparedAPNsPush(payload: bytes, options: options, validate: validate)
            for w in push.warnings { printError("pushlab send apns: warning: \(source) \(w.place): \(w.message)") }
            if push.pushType == .liveactivity, let t = LiveActivityPush(bytes: push.payload)?.timestamp {
                warnAboutTimestamp(t, source: source)
            }
            return push
        } catch {
            switch error {
            // Flags the user can fix: usage errors (exit 2).
            case .missingTopic, .badPriority, .badExpiration, .collapseIDTooLong, .badAPNsID:
                throw UsageError("\(error)")
            // Not JSON at all: unreadable input (exit 2), as in validate and send fcm.
            case .payloadEmpty, .payloadNotJSON:
                throw UsageError("\(source): \(error)", fix: error.fix)
            // JSON, but not an object: a failed validation (exit 1), as in pushlab validate.
            case .payloadNotObject:
                throw PreflightRefusal(message: "\(source): \(error)\n  fix: \(error.fix ?? "")")
            // The payload failed validation (exit 1, like pushlab validate).
            default:
                throw PreflightRefusal(message: "\(source): \(error.description(source: source))")
            }
        }
    }
}

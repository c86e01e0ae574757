import Foundation
import PushAuth
import PushCore
import PushHTTP
import PushSend

/// `pushlab send fcm`: FCM HTTP v1 `messages:send` with a service account.
enum SendFCMCommand: Command {
    static let path = ["send", "fcm"]
    static let summary = "Send an FCM HTTP v1 message (service-account OAuth2) to an installation ID, token, topic, condition or a file of them."
    static let positionalUsage = "[message.json | -]"
    static let discussion = """
        The file may be a full request ({"message": {…}}), a bare message, or a bare APNs payload \
        ({"aps": …}), which is wrapped under message.apns.payload — how a Customer.io rich push \
        reaches iOS through FCM. Without a file the builder flags make the message. It is validated \
        before sending (--no-validate skips that); an APNs token given as --token is refused before \
        anything is sent.

        The service account comes from --service-account or GOOGLE_APPLICATION_CREDENTIALS; the \
        access token is fetched from its token_uri and never printed. When --url is a loopback URL \
        (the emulator, any port) and token_uri is too (the dev account's https://localhost:8443/token), \
        the token comes from <url>/token instead, so the emulator works on any port. --dry-run sets validate_only: FCM checks the message without delivering it.

        --live-activity-token sets message.apns.live_activity_token, so a Live Activity payload \
        (payloads/live-activities/) goes through FCM to an activity; the result is validated like \
        a message file that carries it (docs/live-activities.md "Through FCM").

        --fid sends to a Firebase Installation ID (message.fid, 22 characters), the target \
        firebase-admin 7.x prefers over the deprecated registration token (docs/sending.md "FCM \
        installation IDs"). With --tokens FILE the same message goes to every token, with --fids FILE \
        to every installation ID (see send apns for the bulk options). \
        Exit status: 0 accepted (bulk: all accepted), 1 rejected or failed, 2 bad usage or input.
        """
    static let serviceAccount = Option.string("--service-account", name: "JSON", help: "Service-account key file (or GOOGLE_APPLICATION_CREDENTIALS).", env: "GOOGLE_APPLICATION_CREDENTIALS")
    static let project = Option.string("--project", name: "ID", help: "Firebase project id (default: the service account's project_id).")
    static let fid = Option.string("--fid", name: "FID", help: "Firebase Installation ID (message.fid): 22 characters, starting with c, d, e or f.")
    static let token = Option.string("--token", name: "TOKEN", help: "FCM registration token (deprecated by Firebase in favour of --fid).")
    static let fids = Option.string("--fids", name: "FILE", help: "Bulk: send to every Firebase Installation ID of FILE (one per line, '-' for stdin, # comments).")
    static let topic = Option.string("--topic", name: "NAME", help: "Send to a topic instead.")
    static let condition = Option.string("--condition", name: "EXPR", help: "Send to a topic condition, e.g. \"'a' in topics && 'b' in topics\".")
    static let dryRun = Option.flag("--dry-run", help: "validate_only: FCM checks the message but does not deliver it.")
    static let liveActivityToken = Option.string("--live-activity-token", name: "TOKEN", help: "Set message.apns.live_activity_token: the ActivityKit push-to-start token (start) or the activity's push token (update, end); replaces one in the file.")
    static let url = Option.string("--url", name: "URL", help: "FCM base URL (the emulator, e.g. https://localhost:8443).", default: FCMClient.defaultBaseURL)

    /// The single-target flags, in FCMTarget's field order.
    static let targets = [fid, token, topic, condition]

    static let options: [any OptionDeclaration] = [
        serviceAccount, project, fid, token, fids, topic, condition, dryRun, liveActivityToken, url,
    ] + SendSupport.builderOptions + SendSupport.connectionOptions + [SendSupport.transportOption] + SendSupport.bulkOptions + SendSupport.reportingOptions + ProfileDefaults.options

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        let targetOptions = targets + [SendSupport.tokens, fids]
        let targetFlags = targetOptions.map(\.spec.primary)
        let givenTargets = targetOptions.filter { args.isGiven($0) }.map(\.spec.primary)
        if givenTargets.count > 1 {
            throw UsageError("give one of \(targetFlags.joined(separator: ", ")); got \(givenTargets.joined(separator: " and "))")
        }
        let accountPath = try args.required(serviceAccount,
                                            fix: "download a key in the Firebase console: Project settings → Service accounts → Generate new private key")
        var account: ServiceAccount
        do { account = try ServiceAccount.load(path: accountPath) } catch {
            throw UsageError("--service-account \(error.path): \(error.reason)", fix: error.fix)
        }
        KeyFilePermissions.warnIfShared(accountPath, flag: "--service-account")
        let message = try prepareMessage(args)
        let validate = !args[SendSupport.noValidate]
        let bulkFIDs = args.isGiven(fids)
        let bulk = args.isGiven(SendSupport.tokens) || bulkFIDs
        var target = try commandLineTarget(args)
        if !bulk {
            target = target ?? message.fileTarget
            guard let t = target else { throw UsageError("\(FCMMessageError.noTarget)") }
            if validate, let problem = t.finding { throw UsageError("--\(t.fieldName): \(problem.message)", fix: problem.fix) }
        }
        let base = try args[url]
        guard let url = URLComponents(string: base), url.scheme == "https" || url.scheme == "http", url.host != nil else {
            throw UsageError("--url '\(base)' is not an http(s) URL with a host", fix: "e.g. https://localhost:8443")
        }
        account = tokenEndpoint(for: account, baseURL: base)

        let projectID = try args[project] ?? account.projectID
        let history = try SendSupport.openHistory(args)
        defer { history?.close() }
        let files = try bulk ? SendSupport.openBulk(args, tokensPath: bulkFIDs ? try args[fids]! : try args[SendSupport.tokens]!, history: history,
                                                    endpoint: FCMClient.sendURL(baseURL: base, projectID: projectID)) : nil

        let clients = try SendSupport.sendClients(args, bulk: bulk)
        let transport = SendSupport.transport(clients)
        let tokens = OAuthTokenSource(account: account, transport: clients[0])
        let client = FCMClient(baseURL: base, projectID: projectID, transport: transport,
                               credential: tokens, retry: try SendSupport.retryPolicy(args),
                               log: SendSupport.verboseLog(args), requestTimeout: try args[SendSupport.timeout])
        let status: Int32
        if let files {
            // One FCMClient per connection: message i goes out on clients[i % N], from its loop.
            let perConnection = clients.map { http in
                var c = client
                c.transport = http
                return c
            }
            status = try await SendSupport.runBulk(args, provider: .fcm, files: files, clients: clients) { line, index in
                await SendSupport.client(perConnection, for: index)
                    .send(message, to: bulkFIDs ? .fid(line) : .token(line), index: index, checkTarget: validate).report
            }
        } else {
            let result = await client.send(message, to: target!, checkTarget: validate)
            SendSupport.record(result.report, in: history, endpoint: client.sendURL)
            var fix: String?
            var extra: [String: String] = [:]
            switch result.outcome {
            case .rejected(let e):
                fix = e.fix
                for (i, v) in e.fieldViolations.enumerated() { extra["field_violation_\(i + 1)"] = "\(v.field): \(v.description)" }
            case .accepted:
                if message.validateOnly { extra["validate_only"] = "true (not delivered)" }
            case .failed, .notSent, .noAccessToken: break
            }
            status = try SendSupport.printSingle(result.report, fix: fix, extra: extra, json: args[SendSupport.json])
        }
        for c in clients { await c.shutdown() }
        return status
    }

    /// The one target given as --fid, --token, --topic or --condition, if any.
    static func commandLineTarget(_ args: ParsedArguments) throws -> FCMTarget? {
        try targets.compactMap { option in
            try args[option].flatMap { FCMTarget(field: String(option.spec.primary.dropFirst(2)), value: $0) }
        }.first
    }

    /// A local `--url` (the emulator, on whatever port it runs) also serves the OAuth token
    /// endpoint, so a loopback account's token_uri follows it: the dev service account names
    /// https://localhost:8443/token, which is wrong for `pushlab serve --port 0`. A token_uri on
    /// a real host is never redirected.
    static func tokenEndpoint(for account: ServiceAccount, baseURL: String) -> ServiceAccount {
        guard isLoopback(baseURL), isLoopback(account.tokenURI) else { return account }
        let base = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        return ServiceAccount(projectID: account.projectID, clientEmail: account.clientEmail, privateKeyID: account.privateKeyID,
                              privateKey: account.privateKey, tokenURI: base + FCMPath.oauthToken, source: account.source)
    }

    private static func isLoopback(_ url: String) -> Bool {
        guard let host = URLComponents(string: url)?.host?.lowercased() else { return false }
        return host == "localhost" || host == "::1" || host == "[::1]" || host.hasPrefix("127.")
    }

    /// The message with `apns.live_activity_token` set to `token` (docs/specs/fcm.md "Live
    /// Activities through FCM"); the validator then checks it as it checks a file that has it.
    static func settingLiveActivityToken(_ token: String, in members: JSONObject, source: String) throws -> JSONObject {
        guard !token.isEmpty else {
            throw UsageError("--live-activity-token is empty", fix: "pass the ActivityKit push-to-start token (start) or the activity's push token (update, end)")
        }
        var message = members
        var apns = JSONObject()
        if let existing = message["apns"] {
            guard let o = existing.objectValue else {
                throw UsageError("\(source): /message/apns is \(existing.describedForMessage); it must be an object to carry --live-activity-token")
            }
            apns = o
        }
        apns.members.removeAll { $0.key == "live_activity_token" }
        apns.members.insert(JSONMember(key: "live_activity_token", value: .string(token)), at: 0)
        if let i = message.members.firstIndex(where: { $0.key == "apns" }) {
            message.members[i] = JSONMember(key: "apns", value: .object(apns))
        } else {
            message.members.append(JSONMember(key: "apns", value: .object(apns)))
        }
        return message
    }

    static func prepareMessage(_ args: ParsedArguments) throws -> PreparedFCMMessage {
        let (bytes, source) = try SendSupport.payloadBytes(args, fcm: true)
        let document: JSONDocument
        do { document = try JSONDocument.parse(bytes) } catch {
            throw UsageError("\(source): not valid JSON: \(error)", fix: error.fix)
        }
        var message: PreparedFCMMessage
        do {
            message = try PreparedFCMMessage(document: document, validateOnly: args[dryRun], validate: false)
            if source == SendSupport.builderSource {
                // The builder's placeholder target is not a destination.
                message = try PreparedFCMMessage(members: message.members, validateOnly: message.validateOnly)
            }
        } catch {
            throw UsageError("\(source): \(error)")
        }
        if let token = try args[liveActivityToken] {
            let members = try settingLiveActivityToken(token, in: message.members, source: source)
            do {
                message = try PreparedFCMMessage(members: members, validateOnly: message.validateOnly, fileTarget: message.fileTarget,
                                                 wrapped: message.wrappedAPNsPayload)
            } catch { throw UsageError("\(source): \(error)") }
        }
        guard !args[SendSupport.noValidate] else { return message }
        // The validator sees the request as it will be sent (with the target it will carry).
        let target = try commandLineTarget(args)
        let warnings: [ValidationFinding]
        do { warnings = try message.validate(for: target, source: source) } catch {
            throw PreflightRefusal(message: "\(error)")
        }
        for w in warnings { printError("pushlab send fcm: warning: \(source) \(w.place): \(w.message)") }
        return message
    }
}

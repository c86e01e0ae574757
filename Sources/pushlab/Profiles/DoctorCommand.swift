import Foundation
import PushAuth
import PushCore
import PushHTTP
import PushSend

/// One thing `pushlab doctor` looked at, with what to do when it is wrong.
struct DoctorFinding: Encodable {
    enum Level: String, Encodable { case ok, warning, error }
    var check: String
    var level: Level
    var message: String
    var fix: String?
}

/// `pushlab doctor`: checks a profile's (or the flags') credentials and a token offline, and
/// with --online the hosts' TLS trust and the clock skew that breaks JWTs.
enum DoctorCommand: Command {
    static let path = ["doctor"]
    static let summary = "Check credentials, bundle id, token shape, and (with --online) TLS trust and clock skew; each finding with its fix."
    static let discussion = """
        Looks at the current profile (or --profile NAME), with any of the flags below overriding \
        it: the .p8 parses and is a P-256 key, key id and team id have Apple's shape, the bundle id \
        carries no push-type suffix, the key file is private, a --token has the shape of the \
        service it is for, the service account loads and names its project. Offline by default; \
        --online also connects to each host (Apple's or the profile's --url) to check that its \
        certificate is trusted and that this machine's clock agrees with the server's (a skew of \
        more than a minute makes provider tokens fail with ExpiredProviderToken or \
        InvalidProviderToken).

        Exit status: 0 nothing wrong (warnings allowed), 1 a check failed, 2 bad usage.
        """
    static let credentials = APNsCredentialFlags.withEnvironment
    static let topic = Option.string("--topic", name: "BUNDLE", help: "The app's bundle id.", env: "APNS_TOPIC")
    static let sandbox = Option.flag("--sandbox", help: "Check against APNs sandbox.")
    static let production = Option.flag("--production", help: "Check against APNs production.")
    static let url = Option.string("--url", name: "URL", help: "An APNs-speaking server instead of Apple's.")
    static let serviceAccount = Option.string("--service-account", name: "JSON", help: "FCM service-account key file.", env: "GOOGLE_APPLICATION_CREDENTIALS")
    static let project = Option.string("--project", name: "ID", help: "Firebase project id the pushes go to.")
    static let fcmURL = Option.string("--fcm-url", name: "URL", help: "An FCM-speaking server instead of Google's (for --online).", described: FCMClient.defaultBaseURL)
    static let token = Option.string("--token", name: "TOKEN", help: "A device token to check: APNs (hex) or FCM registration token.")
    static let caFile = Option.string("--ca-file", name: "PEM", help: "Trust this CA for --online checks (e.g. the emulator's dev CA).")
    static let online = Option.flag("--online", help: "Also connect to the hosts: TLS trust and clock skew.")
    static let json = Option.flag("--json", help: "Print the findings as JSON.")
    static let profile = Option.string("--profile", name: "NAME", help: "Check this profile (default: the current one).")

    static let options: [any OptionDeclaration] = credentials.options + APNsCertificateFlags.options + [
        topic, sandbox, production, url, serviceAccount, project, fcmURL, token, caFile, online, json, profile, ProfileDefaults.config,
    ]

    static func run(_ args: ParsedArguments) async throws -> Int32 {
        var args = args
        // The profile fills what the flags leave out, exactly as for send apns / send fcm.
        try ProfileDefaults.apply(to: &args, ProfileDefaults.doctor)
        var findings: [DoctorFinding] = []
        var apnsBase: String?
        if let keyPath = try args[credentials.key] {
            findings += checkAPNsKey(keyPath, keyID: try args[credentials.keyID],
                                     teamID: try args[credentials.teamID])
            findings += permissionFinding(keyPath, check: "apns.key-permissions")
            apnsBase = try SendAPNsCommand.endpoint(args).baseURL
        }
        if args.isGiven(APNsCertificateFlags.cert) {
            findings += try checkCertificate(args)
            apnsBase = try SendAPNsCommand.endpoint(args).baseURL
        }
        if let bundle = try args[topic] { findings.append(checkBundleID(bundle)) }
        var fcmHosts: [String] = []
        if let accountPath = try args[serviceAccount] {
            let (finding, account) = checkServiceAccount(accountPath, project: try args[project])
            findings += finding
            if let account { fcmHosts = [try args[fcmURL] ?? FCMClient.defaultBaseURL, account.tokenURI] }
            findings += permissionFinding(accountPath, check: "fcm.key-permissions")
        }
        if let token = try args[Self.token] { findings.append(checkToken(token, apns: apnsBase != nil, fcm: !fcmHosts.isEmpty)) }
        if findings.isEmpty {
            throw UsageError("nothing to check: no profile and no credentials given",
                             fix: "add a profile ('pushlab profile add'), or pass --key/--team-id/--topic or --service-account")
        }
        if args[online] {
            let client = try HTTPClient(configuration: HTTPClientConfiguration(caFile: try args[caFile], requestTimeout: .seconds(10)))
            for host in ([apnsBase].compactMap { $0 } + fcmHosts) { findings += await checkHost(host, client: client) }
            await client.shutdown()
        }
        if args[json] {
            print(try renderJSON(findings))
        } else {
            for f in findings {
                let mark = f.level == .ok ? "ok     " : f.level == .warning ? "warning" : "error  "
                print("\(mark) \(f.check): \(f.message)")
                if let fix = f.fix, f.level != .ok { print("        fix: \(fix)") }
            }
            let errors = findings.filter { $0.level == .error }.count
            print(errors == 0 ? "no problems found" : "\(errors) problem(s) found")
        }
        return findings.contains { $0.level == .error } ? ExitStatus.failure : ExitStatus.success
    }

    static func checkAPNsKey(_ path: String, keyID: String?, teamID: String?) -> [DoctorFinding] {
        guard let teamID else {
            return [.init(check: "apns.team-id", level: .error, message: "no team id", fix: "pass --team-id (10 characters, developer account > Membership)")]
        }
        do {
            let key = try APNsAuthKey.load(path: path, keyID: keyID, teamID: teamID)
            return [.init(check: "apns.key", level: .ok, message: "\(path) is a P-256 key, key id \(key.keyID), team id \(key.teamID)")]
        } catch {
            return [.init(check: "apns.key", level: .error, message: "\(error.source ?? path): \(error.reason)", fix: error.fix)]
        }
    }

    /// A provider certificate: what it covers, until when, and whether it fits --topic and the
    /// chosen environment (the sender's own preflight rules).
    static func checkCertificate(_ args: ParsedArguments, now: Date = Date()) throws -> [DoctorFinding] {
        let certificate: APNsClientCertificate
        do {
            guard let loaded = try APNsCertificateFlags.load(args) else { return [] }
            certificate = loaded
        } catch let error as UsageError {
            return [.init(check: "apns.cert", level: .error, message: error.message, fix: error.fix)]
        }
        let facts = certificate.facts
        let until = ISO8601DateFormatter().string(from: facts.notAfter)
        var findings: [DoctorFinding] = [.init(check: "apns.cert", level: .ok,
            message: "\(certificate.source): \(facts.subject); topics \(facts.topics.isEmpty ? "(none listed)" : facts.topics.joined(separator: ", ")); \(facts.environmentDescription); valid until \(until)")]
        do {
            try APNsCertificateFlags.preflight(certificate, topic: try args[topic], endpoint: try SendAPNsCommand.endpoint(args),
                                              sendAnyway: nil)
            let days = facts.notAfter.timeIntervalSince(now) / 86_400
            if days < 30 {
                findings.append(.init(check: "apns.cert-expiry", level: .warning, message: "the certificate expires in \(Int(days)) day(s), on \(until)",
                                      fix: "create its successor in the developer account now, or move to a .p8 key (it never expires)"))
            }
        } catch let error as UsageError {
            findings.append(.init(check: "apns.cert-fit", level: .error, message: error.message, fix: error.fix))
        }
        findings += permissionFinding(try args[APNsCertificateFlags.certKey] ?? certificate.source, check: "apns.cert-permissions")
        return findings
    }

    /// A private-key file readable by others (the same rule as the send commands' warning).
    static func permissionFinding(_ path: String, check: String) -> [DoctorFinding] {
        guard KeyFilePermissions.warning(for: path, flag: "") != nil else { return [] }
        return [.init(check: check, level: .warning, message: "\(path) is readable by other users; it holds a private key",
                      fix: "chmod 600 \(path)")]
    }

    /// The topic is the bare bundle id: the sender adds the push type's suffix itself.
    static func checkBundleID(_ bundle: String) -> DoctorFinding {
        if let type = APNsPushType.allCases.first(where: { !$0.topicSuffix.isEmpty && bundle.hasSuffix($0.topicSuffix) }) {
            let bare = String(bundle.dropLast(type.topicSuffix.count))
            return .init(check: "apns.bundle-id", level: .warning,
                         message: "\(bundle) ends with the \(type.rawValue) suffix \(type.topicSuffix); alert pushes to it are refused (DeviceTokenNotForTopic)",
                         fix: "use the bare bundle id \(bare); pushlab adds \(type.topicSuffix) for --push-type \(type.rawValue)")
        }
        let parts = bundle.split(separator: ".", omittingEmptySubsequences: false)
        if parts.count < 2 || parts.contains(where: \.isEmpty) || bundle.contains(" ") {
            return .init(check: "apns.bundle-id", level: .error, message: "'\(bundle)' does not look like a bundle id",
                         fix: "use the app's reverse-DNS bundle id, e.g. com.example.app")
        }
        return .init(check: "apns.bundle-id", level: .ok, message: "\(bundle) is a bare bundle id")
    }

    static func checkServiceAccount(_ path: String, project: String?) -> ([DoctorFinding], ServiceAccount?) {
        do {
            let account = try ServiceAccount.load(path: path)
            var out: [DoctorFinding] = [.init(check: "fcm.service-account", level: .ok,
                                              message: "\(path) loads: project \(account.projectID), token endpoint \(account.tokenURI)")]
            if let project, project != account.projectID {
                out.append(.init(check: "fcm.project", level: .warning,
                                 message: "pushes go to project \(project) but the service account belongs to \(account.projectID)",
                                 fix: "give the account the Firebase Cloud Messaging API Admin role in \(project), or use that project's service account"))
            }
            return (out, account)
        } catch {
            return ([.init(check: "fcm.service-account", level: .error, message: "\(error.path): \(error.reason)", fix: error.fix)], nil)
        }
    }

    static func checkToken(_ token: String, apns: Bool, fcm: Bool) -> DoctorFinding {
        let kind = DeviceToken.classify(token)
        let shown = DeviceToken.redacted(token)
        // With credentials for one service only, the token is checked against that service.
        let service: DeviceTokenKind = apns && !fcm ? .apns : fcm && !apns ? .fcm : (kind == .invalid ? .apns : kind)
        if let problem = DeviceToken.problem(token, for: service) {
            return .init(check: "token", level: .error, message: "\(shown): \(problem.message)", fix: problem.fix)
        }
        return .init(check: "token", level: .ok, message: "\(shown) has the shape of an \(service == .apns ? "APNs device" : "FCM registration") token")
    }

    /// Connects to `base`: a TLS failure names the trust problem; the Date header gives the skew.
    static func checkHost(_ base: String, client: HTTPClient) async -> [DoctorFinding] {
        guard let url = URL(string: base), let host = url.host else {
            return [.init(check: "online", level: .error, message: "\(base) is not a URL", fix: "check --url")]
        }
        let origin = "\(url.scheme ?? "https")://\(host)\(url.port.map { ":\($0)" } ?? "")/"
        let sentAt = Date()
        do {
            let response = try await client.send(HTTPRequest(method: "GET", url: origin))
            var out: [DoctorFinding] = [.init(check: "online.tls", level: .ok, message: "\(host): connected, certificate trusted (HTTP \(response.status))")]
            if let date = response.headers.values(for: "date").first, let serverTime = httpDate(date) {
                let skew = serverTime.timeIntervalSince(sentAt.addingTimeInterval(Date().timeIntervalSince(sentAt) / 2))
                let level: DoctorFinding.Level = abs(skew) > 60 ? .error : .ok
                out.append(.init(check: "online.clock", level: level,
                                 message: String(format: "%@: this machine's clock is %.0f s %@ the server's", host, abs(skew), skew > 0 ? "behind" : "ahead of"),
                                 fix: "synchronise the clock (e.g. systemd-timesyncd or chrony); JWTs are judged by the server's time"))
            }
            return out
        } catch {
            return [.init(check: "online.tls", level: .error, message: "\(host): \(error)",
                          fix: "check the network and the host; for a local emulator pass --ca-file with its CA (e.g. certs/ca.pem)")]
        }
    }

    static func httpDate(_ text: String) -> Date? { HTTPDate.parse(text) }
}

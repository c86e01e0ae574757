import Foundation
import PushAuth
import PushCore
import PushConsole
import PushHTTP
import PushSend

/// `pushlab serve --console --console-profile NAME`: the send form can also send with a
/// profile's credentials, to Apple's and Google's servers (or the profile's `--url`). The
/// profile fills the same flags it fills for `pushlab send apns|fcm`, and the clients are built
/// by those commands' own helpers, so the console sends exactly as the CLI would.
enum ConsoleProfileSender {
    /// The sender and the HTTP clients to shut down at the end.
    static func make(profile name: String, config: String?) throws -> (ConsoleSender, [HTTPClient]) {
        let configPath = UserConfig.path(config)
        guard let (name, profile) = try UserConfig.load(configPath).profile(named: name) else {
            throw UsageError("--console-profile: no profile", fix: "name one, e.g. --console-profile myapp-dev")
        }
        guard profile.apns != nil || profile.fcm != nil else {
            throw UsageError("--console-profile \(name): the profile has neither APNs nor FCM credentials",
                             fix: "add them with 'pushlab profile add \(name) --key … | --service-account …'")
        }
        var clients: [HTTPClient] = []
        func client(_ args: ParsedArguments) throws -> HTTPClient {
            let c = try SendSupport.httpClients(args, bulk: false)[0]
            clients.append(c)
            return c
        }
        var base = ParsedArguments()
        base.fill(ProfileDefaults.profile, name)
        base.fill(ProfileDefaults.config, configPath)

        var apns: APNsClient?
        var apnsEnvironment: String?
        var topic: String?
        if profile.apns != nil {
            var args = base
            try ProfileDefaults.apply(to: &args, ProfileDefaults.sendAPNs)
            let endpoint = try SendAPNsCommand.endpoint(args)
            let key = try SendAPNsCommand.loadKey(args)
            apns = APNsClient(endpoint: endpoint, transport: try client(args), credential: ProviderTokenCache(key: key))
            if endpoint.baseURL.contains(APNsEndpoint.sandboxHost) { apnsEnvironment = APNsEnvironment.sandbox.rawValue }
            if endpoint.baseURL.contains(APNsEndpoint.productionHost) { apnsEnvironment = APNsEnvironment.production.rawValue }
            topic = try args[SendAPNsCommand.topic]
        }
        var fcm: FCMClient?
        var project: String?
        if let path = profile.fcm?.serviceAccount {
            var args = base
            try ProfileDefaults.apply(to: &args, ProfileDefaults.sendFCM)
            var account: ServiceAccount
            do { account = try ServiceAccount.load(path: path) } catch {
                throw UsageError("--console-profile \(name): service account \(error.path): \(error.reason)", fix: error.fix)
            }
            let url = try args[SendFCMCommand.url]
            account = SendFCMCommand.tokenEndpoint(for: account, baseURL: url)
            let transport = try client(args)
            project = try args[SendFCMCommand.project] ?? account.projectID
            fcm = FCMClient(baseURL: url, projectID: project ?? account.projectID, transport: transport,
                            credential: OAuthTokenSource(account: account, transport: transport))
        }
        var sender = ConsoleSender(apns: apns, fcm: fcm)
        sender.target = ConsoleSender.Target(id: "profile", label: "profile \(name)", apnsURL: apns?.endpoint.baseURL, fcmURL: fcm?.baseURL,
                                             apnsEnvironment: apnsEnvironment, topic: topic, project: project,
                                             real: apnsEnvironment != nil || fcm?.baseURL == FCMClient.defaultBaseURL)
        return (sender, clients)
    }
}

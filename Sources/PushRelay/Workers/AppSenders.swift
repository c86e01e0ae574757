import Foundation
import PushAuth
import PushCore
import PushHTTP
import PushRedis
import PushSend

/// Why an app's senders could not be made (a key that does not load, a missing emulator).
public struct SenderSetupError: Error, Sendable, CustomStringConvertible {
    public var app: String
    public var message: String
    public var description: String { "app '\(app)': \(message)" }
}

/// One app's clients: its own HTTP/2 connections, APNs provider-token cache (one per
/// environment host) and FCM OAuth token source. APNs goes through the transport
/// `HTTPTransports.make` picks for `workers.transport` (nghttp2's client unless a client
/// certificate or a proxy needs libcurl), as `pushlab send apns --transport` does; FCM and its
/// token exchange through libcurl. Made once at start; the clients retry
/// transient failures themselves (PushSend's policy: backoff, Retry-After, never-retry reasons).
final class AppSenders: Sendable {
    let app: RelayApp
    private let apnsSenders: [APNsEnvironment: APNsSender]
    let fcmClient: FCMClient?
    private let http: HTTPClient
    /// The APNs connections' own client (with the client certificate when the app has one).
    private let apnsHTTP: (any LoopHTTPTransport)?

    /// `credentials`: the app's, loaded and checked (`AppCredentials.load`). `transport`: the
    /// client APNs sends prefer (`workers.transport`). `shared`: the
    /// cluster's Redis when the queue runs there; then every node uses one APNs provider token
    /// per (team, key) (`SharedProviderToken`) and one FCM access token per service account
    /// (`SharedOAuthToken`) instead of its own.
    init(app: RelayApp, credentials: AppCredentials, emulator: EmulatorEndpoints?, retry: RetryPolicy,
         shared: RedisClient? = nil, sharedPrefix: String = "pushlab", transport: HTTPTransportKind = .nghttp2) throws(SenderSetupError) {
        self.app = app
        func fail(_ message: String) -> SenderSetupError { SenderSetupError(app: app.name, message: message) }
        let usesEmulator = app.apns?.target == .emulator || app.fcm?.target == .emulator
        if usesEmulator, emulator == nil { throw fail("target \"emulator\" but no emulator is running") }
        let caFile = app.apns?.caFile ?? app.fcm?.caFile ?? (usesEmulator ? emulator?.caFile : nil)
        var apnsHTTP: (any LoopHTTPTransport)?
        do {
            http = try HTTPClient(configuration: HTTPClientConfiguration(caFile: caFile, maxConnectionsPerHost: 1))
            if app.apns != nil {
                // A provider certificate authenticates the APNs connections only (FCM's get none).
                var configuration = HTTPClientConfiguration(caFile: caFile, maxConnectionsPerHost: 1)
                if case .certificate(let certificate)? = credentials.apns { configuration.clientCertificate = certificate.clientCertificate }
                apnsHTTP = try HTTPTransports.make(configuration: configuration, preferring: transport)
            }
        } catch {
            throw fail("cannot make the HTTP client: \(error)")
        }
        self.apnsHTTP = apnsHTTP
        var clients: [APNsEnvironment: APNsSender] = [:]
        if let apns = app.apns {
            let credential: any APNsCredential
            switch credentials.apns {
            case .token(let key)?: credential = shared.map { SharedProviderToken(key: key, client: $0, keyPrefix: sharedPrefix) } ?? ProviderTokenCache(key: key)
            case .certificate?: credential = CertificateCredential()
            case nil: throw fail("APNs credentials were not loaded")
            }
            for environment in APNsEnvironment.allCases {
                let endpoint: APNsEndpoint
                if let url = apns.environmentURLs[environment] ?? apns.url ?? (apns.target == .emulator ? emulator?.apnsURL(for: environment) : nil) {
                    do { endpoint = try APNsEndpoint.custom(url) } catch { throw fail("\(error)") }
                } else {
                    endpoint = environment == .production ? .production() : .sandbox()
                }
                clients[environment] = APNsSender(APNsClient(endpoint: endpoint, transport: apnsHTTP ?? http, credential: credential, retry: retry))
            }
        }
        apnsSenders = clients
        if let fcm = app.fcm {
            guard let file = credentials.serviceAccount else { throw fail("the FCM service account was not loaded") }
            let tokenURL = fcm.tokenURL ?? (fcm.target == .emulator && fcm.url == nil ? emulator?.tokenURL : nil) ?? file.tokenURI
            let account = ServiceAccount(projectID: file.projectID, clientEmail: file.clientEmail, privateKeyID: file.privateKeyID,
                                         privateKey: file.privateKey, tokenURI: tokenURL, source: file.source)
            let base = fcm.url ?? (fcm.target == .emulator ? emulator?.fcmURL : nil) ?? FCMClient.defaultBaseURL
            let oauth = OAuthTokenSource(account: account, transport: http)
            let credential: any FCMAccessTokenProvider = shared.map { SharedOAuthToken(source: oauth, client: $0, keyPrefix: sharedPrefix) } ?? oauth
            fcmClient = FCMClient(baseURL: base, projectID: fcm.projectID ?? account.projectID, transport: http,
                                  credential: credential, retry: retry)
        } else {
            fcmClient = nil
        }
    }

    /// The loop thread of the HTTP client that sends APNs pushes or FCM messages (`HTTPClient.executor`): a
    /// send started there costs no thread hand-off to the loop and back.
    func executor(forAPNs apns: Bool) -> any TaskExecutor {
        apns ? (apnsHTTP ?? http).executor : http.executor
    }

    /// One APNs host's client, held by reference: a send uses it in place rather than copying
    /// its transport, credential and retry policy.
    final class APNsSender: Sendable {
        let client: APNsClient
        init(_ client: APNsClient) { self.client = client }
    }

    func apnsSender(for environment: APNsEnvironment?) -> APNsSender? {
        apnsSenders[environment ?? app.apns?.environment ?? .sandbox]
    }

    /// Host names (never credentials) for the config read-back.
    var endpoints: [String: String] {
        var out: [String: String] = [:]
        for (env, sender) in apnsSenders { out["apns_\(env.rawValue)"] = sender.client.endpoint.baseURL }
        if let fcmClient { out["fcm"] = fcmClient.baseURL }
        return out
    }

    /// Each HTTP client's loop, named for the state dump: "APNs" (the APNs connections' own
    /// client, when the app has one) and "shared" (FCM, token exchanges, APNs otherwise).
    var loopStates: [(client: String, state: HTTPClientLoopState)] {
        var out: [(String, HTTPClientLoopState)] = []
        if let apnsHTTP { out.append(("APNs, \(type(of: apnsHTTP))", apnsHTTP.loopState)) }
        out.append(("shared, \(type(of: http))", http.loopState))
        return out
    }

    func shutdown() async {
        await apnsHTTP?.shutdown()
        await http.shutdown()
    }
}

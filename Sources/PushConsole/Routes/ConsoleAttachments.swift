import Foundation
import PushAuth
import PushDevice
import PushGateway
import PushHTTP
import PushMetrics
import PushSend

extension Console {
    /// Gives the console the parts that need the running gateway's URLs: a virtual iPhone with
    /// `profile` whose delivered metrics go to `collector` (mounted on the gateway's Google host),
    /// the send form's APNs and FCM clients (the dev `.p8` key and service account in
    /// `certsDirectory`, pointed at this gateway), and the collector's report. Returns the HTTP
    /// client they share, for the caller to shut down after the gateway.
    public func attachLab(gateway: Gateway, collector: MetricsCollector, certsDirectory: String, profile: AppProfile,
                          cdpKey: String, workDirectory: URL) throws -> HTTPClient {
        let caFile = certsDirectory + "/ca.pem"
        let client = try HTTPClient(configuration: HTTPClientConfiguration(caFile: FileManager.default.fileExists(atPath: caFile) ? caFile : nil))
        var profile = profile
        profile.metricsBaseURL = gateway.fcmURL
        profile.cdpAPIKey = cdpKey
        let phone = VirtualPhone(profile: profile, transport: client, workDirectory: workDirectory, time: configuration.phoneTime)
        phone.runsPerSecond = configuration.phoneRunsPerSecond
        attach(phone: phone)

        var apns: APNsClient?
        if let url = gateway.apnsURL, let key = try? PrivateKey(contentsOfFile: certsDirectory + "/AuthKey_PLDEVKEY01.p8"),
           let authKey = try? APNsAuthKey(privateKey: key, keyID: "PLDEVKEY01", teamID: "PLDEVTEAM1"),
           let endpoint = try? APNsEndpoint.custom(url) {
            apns = APNsClient(endpoint: endpoint, transport: client, credential: ProviderTokenCache(key: authKey))
        }
        var fcm: FCMClient?
        if let base = gateway.fcmURL, let tokenURL = gateway.tokenURL,
           let file = try? ServiceAccount.load(path: certsDirectory + "/fcm-service-account.json") {
            let account = ServiceAccount(projectID: file.projectID, clientEmail: file.clientEmail, privateKeyID: file.privateKeyID,
                                         privateKey: file.privateKey, tokenURI: tokenURL, source: file.source)
            fcm = FCMClient(baseURL: base, projectID: account.projectID, transport: client,
                            credential: OAuthTokenSource(account: account, transport: client))
        }
        attach(sender: ConsoleSender(apns: apns, fcm: fcm))
        // "sent" comes from the gateway's records (its --db file, else the ones it keeps in
        // memory), as in the demo's report: the pushes accepted with a delivery id, once each.
        attach {
            if let path = gateway.configuration.recordsPath {
                gateway.records.flush()
                return try collector.report(gatewayDatabasePath: path)
            }
            var seen = Set<String>()
            let sent = try gateway.records.recent(limit: Int.max).compactMap { r -> SentPush? in
                guard r.status == 200, let id = r.deliveryID, seen.insert(id).inserted else { return nil }
                return SentPush(deliveryID: id, sentAt: r.receivedAt, token: r.token)
            }
            return try collector.report(sent: sent)
        }
        return client
    }

    /// Gives the console virtual Android phones for the gateway's devices registered as
    /// `android` (`--devices`): the Customer.io Android SDK with `profile`, its delivered metrics
    /// going to the collector on the gateway's Google host, their notifications shown in the
    /// device view beside the iPhone's. `transport` is the client `attachLab` returned.
    public func attachAndroid(gateway: Gateway, profile: AndroidAppProfile, cdpKey: String, transport: any HTTPTransport,
                              workDirectory: URL) {
        var profile = profile
        profile.metricsBaseURL = gateway.fcmURL
        profile.cdpApiKey = cdpKey
        let notebook = attachedNotebook ?? DeviceNotebook()
        if attachedNotebook == nil { attach(devices: notebook) }
        attach(androidPhones: VirtualAndroidPhones(profile: profile, transport: transport, directory: workDirectory, notebook: notebook))
    }

    /// Where to open the console: the cleartext listener when there is one (no certificate to
    /// trust in the browser), else the TLS one.
    public static func url(of gateway: Gateway) -> String? {
        (gateway.googleAddresses?.cleartextURL ?? gateway.googleAddresses?.tlsURL).map { $0 + "/console" }
    }
}

import Foundation
import PushAuth
import PushCore
import PushDevice
import PushGateway
import PushHTTP
import PushMetrics
import PushRelay
import PushSend

/// The whole offline loop on one machine, wired for the CLI: the gateway emulator (APNs, OAuth,
/// FCM), the metrics collector, an image server, emulated devices behind the gateway, and real
/// APNs/FCM clients over HTTP/2 + TLS trusting the dev CA. No process-wide state: two labs can
/// run side by side.
public final class Lab: Sendable {
    public let configuration: LabConfiguration
    public let gateway: Gateway
    public let collector: MetricsCollector
    public let fleet: DeviceFleet
    /// The virtual Android phones: FCM messages for devices added with `addAndroidDevice` go here.
    public let androidFleet: AndroidFleet
    /// The virtual iPhones' Live Activities: broadcasts and Live Activity pushes go here.
    public let liveActivities: LiveActivityFleet
    /// The virtual iPhones with the Retainza SDK (docs/retainza.md).
    public let retainzaFleet: RetainzaFleet
    public let images: ImageServer
    /// One HTTP/2 client for everything the lab sends (pushes, the NSE's fetches and metrics).
    public let client: HTTPClient
    /// What the devices send through (the client, or the simulator's faulty network around it).
    public let deviceTransport: any HTTPTransport
    private let collectorServer: CollectorServer

    public init(configuration: LabConfiguration) throws {
        self.configuration = configuration
        let work = configuration.workDirectory
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        let certs = configuration.certsDirectory
        client = try HTTPClient(configuration: HTTPClientConfiguration(caFile: certs + "/ca.pem", maxConnectionsPerHost: 4))
        let deviceTransport = configuration.deviceNetwork?(client) ?? client
        self.deviceTransport = deviceTransport
        fleet = DeviceFleet(transport: deviceTransport, clock: ScaledClock(scale: configuration.timeScale), budget: configuration.budget,
                            temporaryDirectory: work.appendingPathComponent("tmp"))
        androidFleet = AndroidFleet(transport: deviceTransport, directory: work.appendingPathComponent("android"))
        var gatewayConfig = GatewayConfiguration(certificateFile: certs + "/server.pem", privateKeyFile: certs + "/server.key")
        gatewayConfig.recordsPath = work.appendingPathComponent("gateway.sqlite").path
        gatewayConfig.faultPlan = configuration.gatewayFaults
        gatewayConfig.recordObserver = configuration.recordObserver
        if configuration.googleRoutes != nil { gatewayConfig.fcmCleartextPort = 0 }
        let channels = BroadcastChannelRegistry()
        let retainzaFleet = RetainzaFleet()
        self.retainzaFleet = retainzaFleet
        liveActivities = LiveActivityFleet(channels: channels)
        gateway = try Gateway(configuration: gatewayConfig, keys: try GatewayKeys.developmentDefaults(certsDirectory: certs),
                              devices: DeviceRegistry(), sink: LabDeliverySink(iphones: fleet, androids: androidFleet, retainza: retainzaFleet), broadcastSink: liveActivities,
                              channels: channels) { router in
            configuration.googleRoutes?(&router)
        }
        let store = try MetricStore(path: work.appendingPathComponent("collector.sqlite").path)
        collector = try MetricsCollector(configuration: CollectorConfiguration(credentials: CollectorCredentials(cdpAPIKeys: [configuration.cdpAPIKey]),
                                                                           faultPlan: configuration.collectorFaults),
                                     store: store)
        collectorServer = CollectorServer(collector: collector, configuration: HTTPServerConfiguration(
            tlsPort: 0, cleartextPort: nil, certificateFile: certs + "/server.pem", privateKeyFile: certs + "/server.key"))
        images = ImageServer(directory: configuration.assetsDirectory, certificateFile: certs + "/server.pem",
                             privateKeyFile: certs + "/server.key", latency: configuration.imageLatency)
    }

    public func start() throws {
        try gateway.start()
        try collectorServer.start()
        try images.start()
    }

    public func stop() async {
        await fleet.waitUntilIdle()
        await androidFleet.waitUntilIdle()
        await retainzaFleet.waitUntilIdle()
        await client.shutdown()
        await images.stop()
        await collectorServer.stop()
        await gateway.stop()
    }

    /// The collector's report over everything stored so far, with the gateway's records of what
    /// was sent (both flushed first).
    public func report() throws -> MetricsReport {
        gateway.records.flush()
        collector.flush()
        return try collector.report(gatewayDatabasePath: gateway.configuration.recordsPath)
    }

    /// The collector's base URL (what app profiles put in `metricsBaseURL`).
    public var collectorURL: String { collectorServer.boundAddresses?.tlsURL ?? "" }

    /// Registers an iPhone with `profile` behind the gateway. Its metrics go to this lab's
    /// collector; its App Group container is a fresh directory.
    @discardableResult
    public func addDevice(name: String, profile: AppProfile, apnsToken: String, fcmToken: String? = nil) -> FleetMember {
        var p = profile
        p.metricsBaseURL = collectorURL
        p.cdpAPIKey = configuration.cdpAPIKey
        let member = FleetMember(profile: p, container: configuration.workDirectory.appendingPathComponent("containers/\(name)"))
        try? FileManager.default.createDirectory(at: member.container, withIntermediateDirectories: true)
        gateway.devices.register(EmulatedDevice(name: name, apnsToken: apnsToken, fcmToken: fcmToken, bundleID: p.bundleID,
                                                firebaseProject: "pushlab-dev"))
        fleet.add(deviceNamed: name, member)
        return member
    }

    /// Registers an Android phone with `profile` behind the gateway's FCM route (project
    /// `pushlab-dev`). Its metrics go to this lab's collector.
    @discardableResult
    public func addAndroidDevice(name: String, profile: AndroidAppProfile, fcmToken: String) -> AndroidAppProfile {
        var p = profile
        p.metricsBaseURL = collectorURL
        p.cdpApiKey = configuration.cdpAPIKey
        gateway.devices.register(EmulatedDevice(name: name, platform: .android, fcmToken: fcmToken, bundleID: p.package,
                                                firebaseProject: "pushlab-dev"))
        androidFleet.add(deviceNamed: name, profile: p)
        return p
    }

    /// An APNs client with the dev `.p8` key, pointed at the gateway.
    public func apnsClient() throws -> APNsClient {
        let certs = configuration.certsDirectory
        let key = try APNsAuthKey(privateKey: try PrivateKey(contentsOfFile: certs + "/AuthKey_PLDEVKEY01.p8"),
                                  keyID: "PLDEVKEY01", teamID: "PLDEVTEAM1")
        return APNsClient(endpoint: try APNsEndpoint.custom(gateway.apnsURL ?? ""), transport: client,
                          credential: ProviderTokenCache(key: key))
    }

    /// An FCM client with the dev service account, whose `token_uri` is this gateway's.
    public func fcmClient() throws -> FCMClient {
        let file = try ServiceAccount.load(path: configuration.certsDirectory + "/fcm-service-account.json")
        let account = ServiceAccount(projectID: file.projectID, clientEmail: file.clientEmail, privateKeyID: file.privateKeyID,
                                     privateKey: file.privateKey, tokenURI: gateway.tokenURL ?? "", source: file.source)
        return FCMClient(baseURL: gateway.fcmURL ?? "", projectID: account.projectID, transport: client,
                         credential: OAuthTokenSource(account: account, transport: client))
    }

    /// A cold start of the app on `device`: recovers pending delivered metrics from the App
    /// Group store and uploads them through the app's event pipeline.
    public func launchApp(device name: String, upload: Bool = true) async throws -> LaunchRecoveryReport {
        guard let member = fleet.member(named: name) else { throw LabError.unknownDevice(name) }
        let store = try PendingMetricStores.open(profile: member.profile, process: .app, container: member.container)
        let pipeline = LaunchRecovery.pipeline(for: member.profile, transport: deviceTransport)
        return try await LaunchRecovery(profile: member.profile, store: store, pipeline: pipeline,
                                        identity: PipelineIdentity(anonymousId: "anon-\(name)")).run(upload: upload)
    }
}

public enum LabError: Error, CustomStringConvertible, Sendable {
    case unknownDevice(String)
    public var description: String {
        switch self {
        case .unknownDevice(let name): return "no device named '\(name)' in the lab"
        }
    }
}

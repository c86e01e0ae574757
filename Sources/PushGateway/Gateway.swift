import Foundation
import PushCore
import PushHTTP

/// The push gateway emulator: APNs on one host, OAuth + FCM + admin on another, sharing the
/// device registry, the records and the fault plan. Start it, read the bound URLs, stop it.
public final class Gateway: Sendable {
    public let configuration: GatewayConfiguration
    public let keys: GatewayKeys
    public let devices: DeviceRegistry
    public let records: PushRecordStore
    /// Live Activity broadcast channels (docs/live-activities.md).
    public let channels: BroadcastChannelRegistry
    /// The routes each host serves, for in-memory dispatch without sockets (the fuzz target in
    /// Fuzz/FuzzServerRequests drives them with `Router.match` + the handler).
    public let apnsRouter: Router
    public let googleRouter: Router
    /// The access tokens `POST /token` issued (the fuzz targets issue one directly, so an input
    /// that only needs to be authenticated skips the RS256 assertion).
    let accessTokens: AccessTokenStore
    private let apnsServer: HTTPServer
    private let googleServer: HTTPServer

    /// `extraRoutes` adds routes to the Google host (`pushlab serve` mounts the collector and
    /// `/health` there).
    public init(configuration: GatewayConfiguration, keys: GatewayKeys, devices: DeviceRegistry,
                sink: (any PushDeliverySink)? = nil, broadcastSink: (any BroadcastDeliverySink)? = nil,
                channels: BroadcastChannelRegistry = BroadcastChannelRegistry(), time: TimeSource = SystemTimeSource(),
                extraRoutes: (inout Router) -> Void = { _ in }) throws {
        self.configuration = configuration
        self.keys = keys
        self.devices = devices
        records = try PushRecordStore(path: configuration.recordsPath, observer: configuration.recordObserver)
        let injector = configuration.faultPlan.isEmpty ? nil : FaultInjector(plan: configuration.faultPlan)
        let devices = devices
        var authorizer = APNsAuthorizer(keys: keys, environment: configuration.environment)
        authorizer.acceptsCertificates = configuration.apnsClientCertificateCAFile != nil
        if configuration.providerTokenUpdates == .team { authorizer.teamTokens = TeamProviderTokens() }
        let apns = APNsRoute(
            authorizer: authorizer,
            devices: devices, throttle: TokenThrottle(limitPerSecond: configuration.perTokenLimit, time: time),
            records: records, sink: sink, time: time, sandbox: configuration.environment == .sandboxOnly,
            authenticatedStreamLimit: configuration.authenticatedStreamLimit, ids: RandomUUIDSource())
        var apnsRouter = Router()
        // Other methods reach the same handler through `methodNotAllowedFallback` (below),
        // whose first check answers 405 MethodNotAllowed.
        let apnsFaults = injector.map { GatewayFaults(injector: $0, answer: apns.faultAnswer) }
        apnsRouter.add("POST", APNsPath.deviceRoute, through: apnsFaults) { request, _ in apns.handle(request) }
        apnsRouter.add("POST", APNsPath.devicePrefix, through: apnsFaults) { request, _ in apns.handle(request) }
        self.channels = channels
        BroadcastRoutes(authorizer: authorizer, devices: devices,
                        channels: channels, sink: broadcastSink, time: time, ids: RandomUUIDSource(),
                        authenticatedStreamLimit: configuration.authenticatedStreamLimit).register(on: &apnsRouter)
        let badPath = ServerResponse(status: APNsRejection(.badPath).status, headers: ["content-type": "application/json"],
                                     body: APNsErrorBody(reason: .badPath).json)
        // A client that reads the clock (`pushlab doctor --online`) asks for `/`: answer with the
        // server's Date, as any origin server with a clock does (RFC 9110 §6.6.1).
        apnsRouter.fallback = { _ in
            var answer = badPath
            answer.headers.add("date", HTTPDate.string())
            return .now(answer)
        }
        // Any other method on an APNs path (a made-up one too) gets APNs' JSON 405, not the
        // server's plain-text one (found by Fuzz/FuzzServerRequests).
        let apnsResponder = apnsFaults.responder { request, _ in apns.handle(request) }
        apnsRouter.methodNotAllowedFallback = { try apnsResponder($0, NoRouteContext()) }

        let tokens = AccessTokenStore()
        accessTokens = tokens
        let oauth = OAuthRoute(keys: keys, tokens: tokens, time: time)
        let fcm = FCMSendRoute(tokens: tokens, devices: devices, records: records, sink: sink, time: time, ids: RandomUUIDSource())
        var googleRouter = Router()
        googleRouter.add("POST", FCMPath.oauthToken) { oauth.handle($0) }
        googleRouter.add("POST", FCMPath.sendRoute,
                         through: injector.map { GatewayFaults(injector: $0, answer: fcm.faultAnswer) }) { request, _ in fcm.handle(request) }
        AdminRoutes(devices: devices, records: records).register(on: &googleRouter)
        extraRoutes(&googleRouter)
        googleRouter.fallback = { request in
            var answer = ServerResponse.text(404, "no route for \(request.method) \(request.path)\n")
            answer.headers.add("date", HTTPDate.string())
            return .now(answer)
        }
        self.apnsRouter = apnsRouter
        self.googleRouter = googleRouter

        // docs/specs/apns.md: one stream until a request with a valid token succeeds.
        var apnsServerConfig = HTTPServerConfiguration(host: configuration.host, tlsPort: configuration.apnsPort,
                                                       cleartextPort: configuration.apnsCleartextPort,
                                                       certificateFile: configuration.certificateFile,
                                                       privateKeyFile: configuration.privateKeyFile)
        apnsServerConfig.settings = HTTP2Settings(maxConcurrentStreams: 1, maxHeaderListSize: 8000)
        apnsServerConfig.idleTimeout = configuration.idleTimeout
        apnsServerConfig.idleGoAwayDebugData = APNsErrorBody(reason: .idleTimeout).json
        apnsServerConfig.eventLoops = configuration.eventLoops
        apnsServerConfig.clientCertificateCAFile = configuration.apnsClientCertificateCAFile
        apnsServer = HTTPServer(configuration: apnsServerConfig, router: apnsRouter)
        let googleConfig = HTTPServerConfiguration(host: configuration.host, tlsPort: configuration.fcmPort,
                                                   cleartextPort: configuration.fcmCleartextPort,
                                                   certificateFile: configuration.certificateFile,
                                                   privateKeyFile: configuration.privateKeyFile,
                                                   eventLoops: configuration.eventLoops)
        googleServer = HTTPServer(configuration: googleConfig, router: googleRouter)
    }

    public func start() throws {
        try apnsServer.start()
        do { try googleServer.start() } catch {
            let s = apnsServer
            Task { await s.stop() }
            throw error
        }
    }

    public func stop() async {
        await apnsServer.stop()
        await googleServer.stop()
        records.close()
    }

    public var apnsAddresses: BoundAddresses? { apnsServer.boundAddresses }
    public var googleAddresses: BoundAddresses? { googleServer.boundAddresses }
    /// `https://127.0.0.1:<port>` of the APNs host (what `pushlab send apns --url` takes).
    public var apnsURL: String? { apnsServer.boundAddresses?.tlsURL }
    /// Base URL of the FCM host (what `pushlab send fcm --url` takes).
    public var fcmURL: String? { googleServer.boundAddresses?.tlsURL }
    /// The OAuth endpoint to put in a service account's `token_uri`.
    public var tokenURL: String? { fcmURL.map { $0 + FCMPath.oauthToken } }
}

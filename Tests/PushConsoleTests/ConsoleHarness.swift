import Foundation
import OfflineLab
import PushAuth
import PushConsole
import PushCore
import PushDevice
import PushGateway
import PushHTTP
import PushMetrics
import PushSend
import TestSupport

/// A gateway on free ports with the console mounted as `pushlab serve --console` mounts it: the
/// log fed by the gateway, the virtual iPhone (metrics to the collector on the same host), the
/// send form's clients; and an HTTPS image server for rich pushes.
final class ConsoleHarness: @unchecked Sendable {
    let gateway: Gateway
    let console: Console
    let collector: MetricsCollector
    let images: ImageServer
    let work: URL
    /// The console's own client (phone and send form), from `attachLab`.
    private var labClient: HTTPClient?
    /// The test's client: talks to the console like a browser would, over TLS with the dev CA.
    let client: HTTPClient
    let apns: APNsClient

    init(configuration: ConsoleConfiguration = ConsoleConfiguration(), capacity: Int = 1_000, attachLab: Bool = true,
         host: String = "127.0.0.1", devices: DeviceRegistry = DeviceRegistry()) throws {
        work = Fixtures.temporaryDirectory("console")
        console = Console(configuration: configuration, log: ConsoleLog(capacity: capacity))
        collector = try MetricsCollector(configuration: CollectorConfiguration(credentials: CollectorCredentials(cdpAPIKeys: ["pushlab-demo-cdp-key"])),
                                         store: try MetricStore(path: work.appendingPathComponent("collector.sqlite").path))
        var config = GatewayConfiguration(certificateFile: Fixtures.serverCert, privateKeyFile: Fixtures.serverKey)
        config.host = host
        config.fcmCleartextPort = 0
        config.eventLoops = 1
        config.recordObserver = console.gatewayFeed
        let console = console, collector = collector
        gateway = try Gateway(configuration: config, keys: try GatewayKeys.developmentDefaults(certsDirectory: Fixtures.path("certs")),
                              devices: devices, sink: console) { router in
            console.register(on: &router)
            collector.register(on: &router)
        }
        try gateway.start()
        images = ImageServer(directory: Fixtures.path("payloads/assets"), certificateFile: Fixtures.serverCert, privateKeyFile: Fixtures.serverKey)
        try images.start()
        if attachLab {
            labClient = try console.attachLab(gateway: gateway, collector: collector, certsDirectory: Fixtures.path("certs"),
                                              profile: try AppProfile.load(path: Fixtures.path("payloads/apps/demo.json")),
                                              cdpKey: "pushlab-demo-cdp-key", workDirectory: work.appendingPathComponent("phone"))
            console.attachAndroid(gateway: gateway, profile: try AndroidAppProfile.load(path: Fixtures.path("payloads/apps/android-demo.json")),
                                  cdpKey: "pushlab-demo-cdp-key", transport: labClient!, workDirectory: work.appendingPathComponent("android"))
        }
        client = try HTTPClient(configuration: HTTPClientConfiguration(caFile: Fixtures.caFile))
        let key = try APNsAuthKey(privateKey: try PrivateKey(contentsOfFile: Fixtures.apnsKey), keyID: Fixtures.apnsKeyID, teamID: Fixtures.apnsTeamID)
        apns = APNsClient(endpoint: try APNsEndpoint.custom(gateway.apnsURL!), transport: client, credential: ProviderTokenCache(key: key))
    }

    func stop() async {
        // Clients first: the servers' graceful stop would otherwise wait for their idle connections.
        console.stop()
        await client.shutdown()
        await labClient?.shutdown()
        await gateway.stop()
        await images.stop()
        try? FileManager.default.removeItem(at: work)
    }

    var base: String { gateway.fcmURL! }

    func get(_ path: String, headers: HTTPHeaders = [:]) async throws -> HTTPResponse {
        try await client.send(HTTPRequest(method: "GET", url: base + path, headers: headers))
    }

    func post(_ path: String, json: String) async throws -> HTTPResponse {
        try await client.send(HTTPRequest(method: "POST", url: base + path, headers: ["content-type": "application/json"], body: Array(json.utf8)))
    }

    /// GET returning the body as a JSON object (fails the test's expectations through the caller on non-JSON).
    func getJSON(_ path: String) async throws -> (status: Int, json: [String: Any]) {
        let r = try await get(path)
        return (r.status, r.json)
    }

    /// Sends `payload` through the gateway's APNs host with pushlab's own client.
    @discardableResult
    func send(_ payload: String, token: String = ConsoleHarness.token, topic: String = Fixtures.bundleID) async throws -> APNsSendResult {
        let push = try PreparedAPNsPush(payload: Array(payload.utf8), options: APNsPushOptions(topic: topic), validate: false)
        return await apns.send(push, to: token)
    }

    static let token = String(repeating: "c0ffee", count: 10) + "abcd"

    /// Polls `condition` every 10 ms until it holds or `seconds` pass.
    func eventually(_ seconds: Double = 10, _ condition: () async throws -> Bool) async rethrows -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try await condition() { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return try await condition()
    }
}

extension HTTPResponse {
    var text: String { String(decoding: body, as: UTF8.self) }
    var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] ?? [:] }
}

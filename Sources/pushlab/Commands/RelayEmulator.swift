import Foundation
import PushGateway
import PushRelay

/// The gateway emulator `pushlab relay` starts for apps whose target is "emulator": one gateway
/// plays APNs sandbox (its Google host serves OAuth and FCM), another APNs production, so
/// `production` and `development` pushes each reach their own host as they would at Apple.
final class RelayEmulator: Sendable {
    let sandbox: Gateway
    let production: Gateway
    let endpoints: EmulatorEndpoints

    /// `acceptsCertificates`: an app authenticates with a provider certificate; the emulator then
    /// asks for TLS client certificates and verifies them against the dev CA (`certs/ca.pem`).
    init(certs: String, observer: (any PushRecordObserver)?, quiet: Bool, acceptsCertificates: Bool = false) async throws {
        var configuration = GatewayConfiguration(certificateFile: certs + "/server.pem", privateKeyFile: certs + "/server.key")
        configuration.recordObserver = observer
        if acceptsCertificates { configuration.apnsClientCertificateCAFile = certs + "/ca.pem" }
        let keys = try GatewayKeys.developmentDefaults(certsDirectory: certs)
        sandbox = try Gateway(configuration: configuration, keys: keys, devices: DeviceRegistry(), sink: quiet ? nil : PushLogLine())
        configuration.environment = .productionOnly
        production = try Gateway(configuration: configuration, keys: keys, devices: DeviceRegistry(), sink: quiet ? nil : PushLogLine())
        try sandbox.start()
        do { try production.start() } catch {
            await sandbox.stop()
            throw error
        }
        var endpoints = EmulatorEndpoints(apnsURL: sandbox.apnsURL ?? "", fcmURL: sandbox.fcmURL ?? "", tokenURL: sandbox.tokenURL ?? "",
                                          caFile: certs + "/ca.pem")
        endpoints.apnsProductionURL = production.apnsURL
        self.endpoints = endpoints
    }

    /// `APNs https://… (sandbox), https://… (production), FCM https://…`
    var summary: String {
        "APNs \(endpoints.apnsURL) (sandbox), \(endpoints.apnsProductionURL ?? endpoints.apnsURL) (production), FCM \(endpoints.fcmURL)"
    }

    func stop() async {
        await production.stop()
        await sandbox.stop()
    }
}

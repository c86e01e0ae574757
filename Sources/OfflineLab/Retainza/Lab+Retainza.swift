import Foundation
import PushCore
import PushDevice
import PushGateway
import PushHTTP
import PushMetrics

extension Lab {
    /// Registers an iPhone whose app embeds the Retainza SDK (docs/retainza.md) behind the
    /// gateway: its FCM token (and its APNs token, which FCM refuses) reach it; its SDK talks to
    /// this lab's collector (`/retainza/v1`). Launch it with `phone.launch()`.
    @discardableResult
    public func addRetainzaPhone(name: String, profile: RetainzaAppProfile, clock: any TimeSource = SystemTimeSource(),
                                 identifiers: any IdentifierSource = SystemIdentifierSource(),
                                 transport: (any HTTPTransport)? = nil) -> RetainzaPhone {
        var p = profile
        p.baseURL = collectorURL + RetainzaContract.collectorPrefix
        let container = configuration.workDirectory.appendingPathComponent("containers/\(name)")
        try? FileManager.default.createDirectory(at: container, withIntermediateDirectories: true)
        gateway.devices.register(EmulatedDevice(name: name, apnsToken: p.apnsToken, fcmToken: p.fcmToken, bundleID: p.bundleID,
                                                firebaseProject: p.firebaseProject))
        let phone = RetainzaPhone(profile: p, container: container.path, transport: transport ?? deviceTransport, clock: clock, identifiers: identifiers)
        retainzaFleet.add(deviceNamed: name, phone)
        return phone
    }

    /// The Retainza server's push side over this lab's FCM route and the collector's registrations.
    public func retainzaServer() throws -> RetainzaServer {
        RetainzaServer(fcm: try fcmClient(), registrations: collector.retainza.store)
    }
}

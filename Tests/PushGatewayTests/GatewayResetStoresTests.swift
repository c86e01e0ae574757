import Foundation
import PushCore
@testable import PushGateway
import PushHTTP
import TestSupport
import XCTest

/// `Gateway.resetStores` (what the fuzz targets call between inputs, so one gateway serves a
/// whole run): after requests changed every store, the gateway answers like a new one.
final class GatewayResetStoresTests: XCTestCase {
    static let token = "3a4b5c6d7e8f90112233445566778899aabbccddeeff00112233445566778899"

    private func makeGateway() throws -> Gateway {
        var config = GatewayConfiguration(certificateFile: Fixtures.path("certs/server.pem"), privateKeyFile: Fixtures.path("certs/server.key"))
        config.apnsPort = 0
        config.fcmPort = 0
        return try Gateway(configuration: config, keys: try GatewayKeys.developmentDefaults(certsDirectory: Fixtures.path("certs")),
                           devices: DeviceRegistry())
    }

    /// What a request sequence can observe of the stores.
    private func observe(_ gateway: Gateway, accessToken: String) throws -> [String] {
        let admin = ServerRequest(method: "GET", path: "/admin/devices",
                                  connection: ConnectionContext(id: 1, isTLS: false, remoteAddress: "127.0.0.1:5000", control: nil))
        guard case .found(let handler, _) = gateway.googleRouter.match(method: "GET", path: "/admin/devices"),
              case .now(let devices) = try handler(admin) else { XCTFail("GET /admin/devices not answered at once"); return [] }
        return [
            "\(devices.status) \(String(decoding: devices.body, as: UTF8.self))",
            "quick start \(gateway.devices.isQuickStart)",
            "other app known \(gateway.devices.lookup(apnsToken: Self.token, bundleID: "io.other.app").bundleKnown)",
            "records \(try gateway.records.recent().count)",
            "channels \(gateway.channels.list(bundleID: "io.pushlab.demo"))",
            "token \(gateway.accessTokens.lookup(accessToken) != nil)",
        ]
    }

    func testAfterResetTheGatewayAnswersLikeANewOne() throws {
        let used = try makeGateway()
        let fresh = try makeGateway()
        used.devices.register(EmulatedDevice(name: "phone", apnsToken: Self.token, bundleID: "io.other.app"))
        used.records.record(PushRecord(receivedAt: Date(), service: .apns, token: Self.token, device: "phone", topic: "io.other.app",
                                       pushType: "alert", messageID: "m", status: 200, reason: nil, deliveryID: nil, headers: [:], payload: "{}"))
        guard case .success = used.channels.create(bundleID: "io.pushlab.demo", settings: BroadcastChannelSettings(storagePolicy: .noStorage)) else {
            return XCTFail("no channel created")
        }
        let token = used.accessTokens.issue(IssuedAccessToken(clientEmail: "a@b", projectID: "pushlab-dev", scopes: [], expiresAt: Date() + 3600))
        // Every store changed, so the used gateway differs from a new one in every line.
        let before = try observe(used, accessToken: token)
        let new = try observe(fresh, accessToken: token)
        for (line, (b, n)) in zip(before, new).enumerated() { XCTAssertNotEqual(b, n, "line \(line) did not change") }

        used.resetStores()
        XCTAssertEqual(try observe(used, accessToken: token), new)
    }
}

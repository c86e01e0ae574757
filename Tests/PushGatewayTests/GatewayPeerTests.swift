import Foundation
import PushCore
import TestSupport
import XCTest
@testable import PushGateway

/// The gateway checked by independent clients: Python `h2` for raw HTTP/2 behaviour and
/// Python `aioapns` as a real APNs client.
final class GatewayPeerTests: XCTestCase {
    private func peer(_ script: String, _ args: [String]) throws -> [String: Any] {
        let r = try ProcessRunner.run(Fixtures.python, [Fixtures.path("Tests/PushGatewayTests/Peers/\(script)")] + args, timeout: 60)
        XCTAssertEqual(r.status, 0, r.stderr)
        let line = r.stdout.split(separator: "\n").last.map(String.init) ?? ""
        return (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] ?? [:]
    }

    func testOneStreamUntilAuthenticatedThenSettingsRaiseTheLimitAndPingIsAnswered() async throws {
        let h = try GatewayHarness()
        addTeardownBlock { await h.stop() }  // stopped and awaited, not fire-and-forget
        let port = try XCTUnwrap(h.gateway.apnsAddresses?.tlsPort)
        let out = try peer("h2_probe.py", ["127.0.0.1", "\(port)", Fixtures.caFile, GatewayHarness.devToken,
                                           try h.providerToken(), Fixtures.bundleID])
        XCTAssertEqual(out["alpn"] as? String, "h2")
        XCTAssertEqual(out["ping_acked"] as? Bool, true)
        XCTAssertEqual(out["status"] as? Int, 200)
        let settings = out["settings"] as? [Int?] ?? (out["settings"] as? [Any])?.map { $0 as? Int } ?? []
        XCTAssertEqual(settings.first ?? nil, 1, "\(out)")
        XCTAssertEqual(settings.dropFirst().compactMap { $0 }.last, 500, "\(out)")
    }

    func testIdleConnectionIsClosedWithGoAwayCarryingAJSONReason() async throws {
        let h = try GatewayHarness(configure: { $0.idleTimeout = .milliseconds(600) })
        addTeardownBlock { await h.stop() }  // stopped and awaited, not fire-and-forget
        let port = try XCTUnwrap(h.gateway.apnsAddresses?.tlsPort)
        let out = try peer("h2_probe.py", ["127.0.0.1", "\(port)", Fixtures.caFile, GatewayHarness.devToken,
                                           try h.providerToken(), Fixtures.bundleID, "5"])
        let goaway = try XCTUnwrap(out["goaway"] as? [String: Any], "\(out)")
        XCTAssertEqual(goaway["debug"] as? String, #"{"reason":"IdleTimeout"}"#)
    }

    func testAioapnsSendsThroughTheGateway() async throws {
        let h = try GatewayHarness()
        addTeardownBlock { await h.stop() }  // stopped and awaited, not fire-and-forget
        let port = try XCTUnwrap(h.gateway.apnsAddresses?.tlsPort)
        let out = try peer("aioapns_send.py", ["localhost", "\(port)", Fixtures.caFile, Fixtures.apnsKey, Fixtures.apnsKeyID,
                                               Fixtures.apnsTeamID, Fixtures.bundleID, GatewayHarness.devToken, "50"])
        XCTAssertEqual(out["ok"] as? Int, 50, "\(out)")
        XCTAssertEqual(h.sink.delivered.count, 50)
    }

    func testAioapnsSeesTheRejectionReason() async throws {
        let h = try GatewayHarness(devices: [EmulatedDevice(name: "gone", apnsToken: GatewayHarness.devToken, bundleID: Fixtures.bundleID,
                                                            unregisteredSince: Date(timeIntervalSince1970: 1_700_000_000))])
        addTeardownBlock { await h.stop() }  // stopped and awaited, not fire-and-forget
        let port = try XCTUnwrap(h.gateway.apnsAddresses?.tlsPort)
        let out = try peer("aioapns_send.py", ["localhost", "\(port)", Fixtures.caFile, Fixtures.apnsKey, Fixtures.apnsKeyID,
                                               Fixtures.apnsTeamID, Fixtures.bundleID, GatewayHarness.devToken, "1"])
        XCTAssertEqual((out["statuses"] as? [String: Int])?["410"], 1, "\(out)")
        XCTAssertEqual((out["reasons"] as? [String: Int])?["Unregistered"], 1, "\(out)")
    }
}

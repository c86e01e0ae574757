import Foundation
import PushHTTP
import TestSupport
import XCTest

/// Abusive HTTP/2 clients (Tests/Peers/abuse.py, also used by benchmarks/robustness.sh) get
/// their connection closed while a well-behaved client on the same server is still served.
final class ServerAbuseTests: XCTestCase {
    func testRSTFloodConnectionGetsGoAwayAndOthersAreStillServed() async throws {
        let server = try ServerTestFixture.start(ServerTestFixture.standardRouter())
        let port = server.boundAddresses!.tlsPort!
        let flood = try ProcessRunner.run(Fixtures.python, [Fixtures.path("Tests/Peers/abuse.py"), "rstflood", String(port),
                                                            "--tls-ca", Fixtures.caFile, "-n", "20000", "-t", "15"], timeout: 30)
        let report = try JSONSerialization.jsonObject(with: Data(flood.stdout.utf8)) as? [String: Any] ?? [:]
        XCTAssertNotNil(report["goaway"], "the server never sent GOAWAY to a rapid-reset flood: \(flood.stdout) \(flood.stderr)")
        XCTAssertLessThan(report["streams_reset"] as? Int ?? .max, 20000)
        let health = try ServerTestFixture.curl(["--http2", server.boundAddresses!.tlsURL! + "/health"])
        XCTAssertEqual(health.status, 200)
        await server.stop()
    }
}

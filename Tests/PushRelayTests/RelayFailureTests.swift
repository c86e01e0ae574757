import Foundation
import PushCore
import PushRelay
import TestSupport
import XCTest

/// The relay's own failure reasons reach the API and the metrics as the strings docs/relay.md
/// lists ("Results"), typed as `RelayFailure` inside.
final class RelayFailureTests: XCTestCase {
    private var harness: RelayHarness!

    override func tearDown() async throws {
        await harness?.stop()
        harness = nil
    }

    /// The documented strings, spelled out here so a renamed case cannot change the wire.
    func testEveryRelayFailureKeepsItsDocumentedWireString() throws {
        XCTAssertEqual(RelayFailure.allCases.map(\.rawValue),
                       ["UnknownApp", "BadContent", "NoAPNsCredentials", "NoAPNsPayload", "NoFCMCredentials", "PreflightFailed",
                        "TransportError", "AccessTokenError"])
        let docs = try String(contentsOfFile: Fixtures.path("docs/relay.md"), encoding: .utf8)
        for failure in RelayFailure.allCases {
            XCTAssertTrue(docs.contains("`\(failure.rawValue)`"), "docs/relay.md lists \(failure.rawValue)")
        }
    }

    /// APNs unreachable and one attempt allowed: the result's reason is the sender's name for the
    /// transport failure, the same string in the status, the deliveries and the failed-by-reason
    /// counter (the typed reason inside changes none of them).
    func testUnreachableProviderFailsWithTheSendersTransportReason() async throws {
        let closed = try ClosedPort()
        harness = try await RelayHarness(extra: #""workers": {"max_attempts": 1},"#, apnsURL: "https://127.0.0.1:\(closed.port)")
        let id = try await harness.push(RelayHarness.apnsBody(tokens: [RelayHarness.goodTokens[0]]))
        let status = try await harness.finished(id)
        XCTAssertEqual(status.value(at: "/results/0/status")?.stringValue, "failed", status.minifiedString)
        XCTAssertEqual(status.value(at: "/results/0/reason")?.stringValue, "ConnectFailed", status.minifiedString)
        let deliveries = try harness.json(try await harness.request("GET", "/v1/apps/demo/deliveries"))
        XCTAssertEqual(deliveries.value(at: "/deliveries/0/reason")?.stringValue, "ConnectFailed", deliveries.minifiedString)
        let admin = try await harness.relay.keys.create(scope: .admin, label: "prometheus").key
        let text = try await harness.request("GET", "/metrics", key: admin).bodyText
        XCTAssertTrue(text.contains(#"pushlab_relay_failed_total{app="demo",platform="apns",reason="ConnectFailed"} 1"#), text)
    }
}

import Foundation
import PushAuth
import PushCore
import PushHTTP
import PushRelay
import Synchronization
import TestSupport
import XCTest

/// Webhooks: batched events over HTTPS to a receiver, signed with HMAC-SHA256 over
/// "<timestamp>.<body>", retried when the receiver fails.
final class RelayWebhookTests: XCTestCase {
    private var harness: RelayHarness!
    private var receiver: HTTPServer!

    override func tearDown() async throws {
        await harness?.stop()
        await receiver?.stop()
    }

    func testEventsArriveSignedAndAFailedPostIsRetried() async throws {
        let received = Mutex<[(headers: HTTPHeaders, body: [UInt8])]>([])
        let attempts = Atomic<Int>(0)
        var router = Router()
        router.add("POST", "/hook") { request in
            // The first POST fails: the dispatcher must retry it.
            if attempts.add(1, ordering: .relaxed).newValue == 1 { return .now(ServerResponse(status: 503)) }
            received.withLock { $0.append((request.headers, request.body)) }
            return .now(ServerResponse(status: 204))
        }
        receiver = HTTPServer(configuration: HTTPServerConfiguration(tlsPort: 0, cleartextPort: nil, certificateFile: Fixtures.serverCert,
                                                                     privateKeyFile: Fixtures.serverKey), router: router)
        try receiver.start()
        let secretFile = Fixtures.temporaryDirectory("relay-hook").appendingPathComponent("secret")
        let secret = "whsec-test-0123456789"
        try Data((secret + "\n").utf8).write(to: secretFile)
        let url = (receiver.boundAddresses?.tlsURL ?? "") + "/hook"
        harness = try await RelayHarness(app: #", "webhook": {"url": "\#(url)", "secret_file": "\#(secretFile.path)", "ca_file": "certs/ca.pem"}"#)

        let id = try await harness.push(RelayHarness.apnsBody(tokens: [RelayHarness.goodTokens[0], RelayHarness.deadToken]))
        _ = try await harness.finished(id)
        var events: [JSONValue] = []
        let deadline = ContinuousClock.now + .seconds(15)
        while ContinuousClock.now < deadline {
            let posts = received.withLock { $0 }
            for post in posts {
                let timestamp = post.headers["pushlab-timestamp"] ?? ""
                let expected = "v1=" + Digest.hex(Digest.hmacSHA256(key: Array(secret.utf8), message: Array((timestamp + ".").utf8) + post.body))
                XCTAssertEqual(post.headers["pushlab-signature"], expected, "signature over timestamp.body")
                XCTAssertLessThan(abs((Int(timestamp) ?? 0) - Int(Date().timeIntervalSince1970)), 300)
            }
            events = try posts.flatMap { try JSONDocument.parse($0.body).root["events"]?.arrayValue?.elements ?? [] }
            if events.contains(where: { $0["type"]?.stringValue == "push_finished" }) { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        XCTAssertGreaterThanOrEqual(attempts.load(ordering: .relaxed), 2, "the failed POST was retried")
        let types = events.compactMap { $0["type"]?.stringValue }
        XCTAssertEqual(types.filter { $0 == "result" }.count, 2, "\(events)")
        XCTAssertEqual(types.filter { $0 == "invalid_token" }.count, 1)
        XCTAssertEqual(types.filter { $0 == "push_finished" }.count, 1)
        let invalid = events.first { $0["type"]?.stringValue == "invalid_token" }
        XCTAssertEqual(invalid?["apns"]?.stringValue, RelayHarness.deadToken)
        XCTAssertEqual(invalid?["reason"]?.stringValue, "Unregistered")
        let admin = try await harness.relay.keys.create(scope: .admin, label: "prometheus").key
        let metrics = try await harness.request("GET", "/metrics", key: admin).bodyText
        XCTAssertTrue(metrics.contains(#"pushlab_relay_webhook_events_total{app="demo",outcome="delivered"}"#), metrics)
    }
}

import Foundation
import PushCore
import PushDevice
import PushHTTP
import PushMetrics
import TestSupport
import XCTest

/// The modelled Retainza ingest API (docs/specs/retainza.md §9) on the real collector over TLS:
/// the emulated SDK's requests, through the real HTTP/2 client, are accepted with the public key
/// as the credential and stored with their call-time timestamps; curl checks the refusals.
final class RetainzaIngestTests: XCTestCase {
    private var directory: URL!
    private var server: CollectorServer!
    private var client: HTTPClient!
    /// The collector's clock and the SDK's: one emulated time on both sides.
    private let clock = ManualTimeSource()

    override func setUp() async throws {
        directory = Fixtures.temporaryDirectory("retainza-ingest")
        let collector = try MetricsCollector(configuration: CollectorConfiguration(),
                                             store: try MetricStore(path: directory.appendingPathComponent("metrics.sqlite").path),
                                             timeSource: clock)
        server = CollectorServer(collector: collector,
                                 configuration: HTTPServerConfiguration(tlsPort: 0, certificateFile: Fixtures.serverCert,
                                                                        privateKeyFile: Fixtures.serverKey))
        try server.start()
        client = try HTTPClient(configuration: HTTPClientConfiguration(caFile: Fixtures.caFile))
    }

    override func tearDown() async throws {
        await client?.shutdown()
        await server?.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    private var baseURL: String { "https://localhost:\(server.tlsPort!)/retainza/v1" }

    func testTheSDKsCallsAreAcceptedWithThePublicKeyAndStoredWithCallTimeTimestamps() async throws {
        let profile = RetainzaAppProfile(publicKey: "pk_test_ingest", baseURL: baseURL)
        let sdk = try RetainzaSDK(profile: profile, storage: RetainzaMemoryStorage(), transport: client, clock: clock,
                                  userProvider: { "user-123" })
        let identify = await sdk.identify("user-123", attributes: ["plan": .string("pro"), "seats": .number(JSONNumber(4))])
        let attributes = await sdk.setAttributes(["plan": .string("enterprise")])
        let track = await sdk.track("order_placed", properties: ["total": .number(JSONNumber(42.5))])
        let collection = await sdk.collection("challenges", op: "add", ids: ["lagos_10k"])
        let register = try await sdk.registerPush(token: profile.fcmToken)
        let ack = await sdk.handle(.object(JSONObject([JSONMember(key: "rz_message_id", value: .string("m-1"))])), action: .opened)
        for outcome in [identify, attributes, track, collection, register, ack.ack] {
            XCTAssertEqual(outcome, .delivered(status: 200))
        }
        let requests = try server.collector.retainza.store.requests()
        XCTAssertEqual(requests.map(\.route), ["identify", "attributes", "track", "collection", "registerPush", "ack"])
        XCTAssertEqual(Set(requests.map(\.status)), [200])
        XCTAssertEqual(Set(requests.compactMap(\.callTimestamp)), [ISO8601Timestamp.format(clock.now)])
        XCTAssertEqual(requests.last?.messageID, "m-1")
        XCTAssertEqual(requests.last?.action, "opened")
        let devices = try server.collector.retainza.store.devices()
        XCTAssertEqual(devices.map(\.token), [profile.fcmToken])
        XCTAssertEqual(devices.first?.userID, "user-123")
        await sdk.reset()
        XCTAssertEqual(try server.collector.retainza.store.devices().first?.isActive, false, "reset unregistered the device")
    }

    func testAQueuedEventArrivesLateWithItsOriginalTimestamp() async throws {
        let profile = RetainzaAppProfile(publicKey: "pk_test_ingest", baseURL: baseURL)
        let phoneNetwork = RetainzaConnectivity(client)
        let sdk = try RetainzaSDK(profile: profile, storage: RetainzaMemoryStorage(), transport: phoneNetwork, clock: clock,
                                  userProvider: { "user-123" })
        phoneNetwork.isOffline = true
        let calledAt = clock.now
        let outcome = await sdk.track("offline_event")
        XCTAssertEqual(outcome, .queued(reason: "network error"))
        clock.advance(by: 600)
        phoneNetwork.isOffline = false
        let sent = await sdk.retryIfDue()
        XCTAssertEqual(sent, 1)
        let stored = try XCTUnwrap(try server.collector.retainza.store.requests().first)
        XCTAssertEqual(stored.event, "offline_event")
        XCTAssertEqual(stored.callTimestamp, ISO8601Timestamp.format(calledAt))
        XCTAssertEqual(stored.receivedAt.timeIntervalSince(calledAt), 600, accuracy: 0.001, "received ten minutes after the call")
    }

    /// Refusals checked with curl: key first (401 without a pk_ key, 403 for sk_), then the body (400 naming the field).
    func testRefusalsNameTheKeyOrTheField() throws {
        func curl(_ key: String?, _ path: String, _ body: String) throws -> (Int, String) {
            var args = ["-s", "--cacert", Fixtures.caFile, "-w", "\n%{http_code}", "--max-time", "10", "-H", "content-type: application/json",
                        "--data-binary", body, baseURL + path]
            if let key { args += ["-H", "authorization: Bearer \(key)"] }
            let r = try ProcessRunner.run("/usr/bin/curl", args)
            XCTAssertEqual(r.status, 0, r.stderr)
            let lines = r.stdout.split(separator: "\n")
            return (Int(lines.last ?? "") ?? 0, lines.dropLast().joined())
        }
        let good = #"{"installId":"i-1","timestamp":"2026-01-01T00:00:00.000Z","event":"e"}"#
        XCTAssertEqual(try curl("pk_test_k", "/events", good).0, 200)
        let missing = try curl(nil, "/events", good)
        XCTAssertEqual(missing.0, 401)
        XCTAssertTrue(missing.1.contains(#""field":"authorization""#), missing.1)
        let secret = try curl("sk_live_k", "/events", good)
        XCTAssertEqual(secret.0, 403)
        XCTAssertTrue(secret.1.contains("secret_key"), secret.1)
        XCTAssertFalse(secret.1.contains("sk_live_k"), "the key is never echoed")
        let nested = try curl("pk_test_k", "/attributes", #"{"installId":"i","timestamp":"2026-01-01T00:00:00.000Z","attributes":{"plan":{"tier":1}}}"#)
        XCTAssertEqual(nested.0, 400)
        XCTAssertTrue(nested.1.contains(#""field":"/attributes/plan""#), nested.1)
        let noUser = try curl("pk_test_k", "/push/register", #"{"installId":"i","timestamp":"2026-01-01T00:00:00.000Z","token":"t"}"#)
        XCTAssertEqual(noUser.0, 400)
        XCTAssertTrue(noUser.1.contains(#""field":"/userId""#), noUser.1)
        let badTime = try curl("pk_test_k", "/events", #"{"installId":"i","timestamp":"yesterday","event":"e"}"#)
        XCTAssertEqual(badTime.0, 400)
        XCTAssertTrue(badTime.1.contains(#""field":"/timestamp""#), badTime.1)
        let statuses = try server.collector.retainza.store.requests().map(\.status)
        XCTAssertEqual(statuses, [200, 401, 403, 400, 400, 400], "refused requests are recorded too")
    }
}

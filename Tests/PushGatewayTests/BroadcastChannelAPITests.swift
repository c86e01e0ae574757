import Foundation
import PushAuth
import PushCore
import PushHTTP
import PushSend
import TestSupport
import XCTest
@testable import PushGateway

/// The emulator's channel-management API and broadcast endpoint (docs/specs/apns.md "Channel
/// management", "Broadcast send"), driven over real HTTP/2 + TLS by pushlab's channel client.
final class BroadcastChannelAPITests: XCTestCase {
    final class Broadcasts: BroadcastDeliverySink, @unchecked Sendable {
        private var seen: [(AcceptedBroadcast, [ChannelSubscriber])] = []
        private let lock = NSLock()
        func deliver(_ broadcast: AcceptedBroadcast, to subscribers: [ChannelSubscriber]) { lock.withLock { seen.append((broadcast, subscribers)) } }
        var all: [(AcceptedBroadcast, [ChannelSubscriber])] { lock.withLock { seen } }
    }

    var gateway: Gateway!
    var http: HTTPClient!
    let sink = Broadcasts()
    /// One provider token for the whole test: APNs refuses a new token on the same connection
    /// within 20 minutes (TooManyProviderTokenUpdates).
    var credential: ProviderTokenCache!

    override func setUp() async throws {
        let config = GatewayConfiguration(certificateFile: Fixtures.serverCert, privateKeyFile: Fixtures.serverKey)
        gateway = try Gateway(configuration: config, keys: try GatewayKeys.developmentDefaults(certsDirectory: Fixtures.path("certs")),
                              devices: DeviceRegistry(), broadcastSink: sink)
        try gateway.start()
        http = try HTTPClient(configuration: HTTPClientConfiguration(caFile: Fixtures.caFile))
        credential = ProviderTokenCache(key: try APNsAuthKey.load(path: Fixtures.apnsKey, teamID: Fixtures.apnsTeamID))
    }

    override func tearDown() async throws {
        await http?.shutdown()
        await gateway?.stop()
    }

    func client() throws -> BroadcastChannelClient {
        let url = gateway.apnsURL!
        return BroadcastChannelClient(management: try .custom(url), push: try .custom(url), transport: http, credential: credential)
    }

    /// A raw request with the dev provider token, for the cases the client would refuse to make.
    func raw(_ method: String, _ path: String, headers: [String: String] = [:], body: String = "") async throws -> HTTPResponse {
        var h = HTTPHeaders()
        h.add("authorization", try await credential.authorization())
        for (k, v) in headers { h.add(k, v) }
        return try await http.send(HTTPRequest(method: method, url: gateway.apnsURL! + path, headers: h, body: Array(body.utf8)))
    }

    func reason(_ r: HTTPResponse) -> String? { (try? JSONDocument.parse(r.body))?.root["reason"]?.stringValue }

    func testCreateGetListDeleteAnswer201_200_200_204() async throws {
        let c = try client()
        guard case .success(let id, let requestID) = await c.create(bundleID: Fixtures.bundleID, policy: .mostRecentMessage) else {
            return XCTFail("create failed")
        }
        XCTAssertTrue(BroadcastChannelAPI.isWellFormedChannelID(id), id)
        XCTAssertNotNil(requestID, "APNs answers with apns-request-id")
        guard case .success(let settings, _) = await c.read(bundleID: Fixtures.bundleID, channelID: id) else { return XCTFail("read") }
        XCTAssertEqual(settings, BroadcastChannelSettings(storagePolicy: .mostRecentMessage))
        guard case .success(let ids, _) = await c.list(bundleID: Fixtures.bundleID) else { return XCTFail("list") }
        XCTAssertEqual(ids, [id])
        guard case .success = await c.delete(bundleID: Fixtures.bundleID, channelID: id) else { return XCTFail("delete") }
        guard case .success(let after, _) = await c.list(bundleID: Fixtures.bundleID) else { return XCTFail("list") }
        XCTAssertEqual(after, [])

        // The same statuses on the wire, read raw.
        let created = try await raw("POST", "/1/apps/\(Fixtures.bundleID)/channels", body: #"{"message-storage-policy":0,"push-type":"LiveActivity"}"#)
        XCTAssertEqual(created.status, 201)
        let newID = try XCTUnwrap(created.headers["apns-channel-id"])
        let read = try await raw("GET", "/1/apps/\(Fixtures.bundleID)/channels", headers: ["apns-channel-id": newID])
        XCTAssertEqual(read.status, 200)
        XCTAssertEqual(String(decoding: read.body, as: UTF8.self), #"{"message-storage-policy":0,"push-type":"LiveActivity"}"#)
        let listed = try await raw("GET", "/1/apps/\(Fixtures.bundleID)/all-channels")
        XCTAssertEqual(listed.status, 200)
        XCTAssertEqual(String(decoding: listed.body, as: UTF8.self), "{\"channels\":[\"\(newID)\"]}")
        let deleted = try await raw("DELETE", "/1/apps/\(Fixtures.bundleID)/channels", headers: ["apns-channel-id": newID])
        XCTAssertEqual(deleted.status, 204)
    }

    func testUnknownChannelIsChannelNotRegistered() async throws {
        let r = try await raw("GET", "/1/apps/\(Fixtures.bundleID)/channels", headers: ["apns-channel-id": "dW5rbm93bi1jaGFubmVsLTE="])
        XCTAssertEqual(r.status, 400)
        XCTAssertEqual(reason(r), "ChannelNotRegistered")
        let d = try await raw("DELETE", "/1/apps/\(Fixtures.bundleID)/channels", headers: ["apns-channel-id": "dW5rbm93bi1jaGFubmVsLTE="])
        XCTAssertEqual(reason(d), "ChannelNotRegistered")
    }

    func testBadStoragePolicyIsBadRequestParamsAndAMissingOneMissingChannelQueueSize() async throws {
        let bad = try await raw("POST", "/1/apps/\(Fixtures.bundleID)/channels", body: #"{"message-storage-policy":7,"push-type":"LiveActivity"}"#)
        XCTAssertEqual(bad.status, 400)
        XCTAssertEqual(reason(bad), "BadRequestParams")
        let missing = try await raw("POST", "/1/apps/\(Fixtures.bundleID)/channels", body: #"{"push-type":"LiveActivity"}"#)
        XCTAssertEqual(reason(missing), "MissingChannelQueueSize")
        let type = try await raw("POST", "/1/apps/\(Fixtures.bundleID)/channels", body: #"{"message-storage-policy":1,"push-type":"alert"}"#)
        XCTAssertEqual(reason(type), "InvalidPushType")
        let noType = try await raw("POST", "/1/apps/\(Fixtures.bundleID)/channels", body: #"{"message-storage-policy":1}"#)
        XCTAssertEqual(reason(noType), "MissingPushType")
    }

    func testAChannelOfOneBundleIsNotRegisteredForAnotherAndUnknownBundlesHaveNoBroadcast() async throws {
        let c = try client()
        guard case .success(let id, _) = await c.create(bundleID: Fixtures.bundleID, policy: .noStorage) else { return XCTFail("create") }
        let devices = gateway.devices
        devices.register(EmulatedDevice(name: "other", apnsToken: String(repeating: "cd", count: 32), bundleID: "io.pushlab.other"))
        let wrong = try await raw("GET", "/1/apps/io.pushlab.other/channels", headers: ["apns-channel-id": id])
        XCTAssertEqual(reason(wrong), "ChannelNotRegistered")
        let unknown = try await raw("POST", "/1/apps/com.example.nobroadcast/channels", body: #"{"message-storage-policy":0,"push-type":"LiveActivity"}"#)
        XCTAssertEqual(unknown.status, 400)
        XCTAssertEqual(reason(unknown), "FeatureNotEnabled")
        let suffixed = try await raw("GET", "/1/apps/\(Fixtures.bundleID).push-type.liveactivity/all-channels")
        XCTAssertEqual(reason(suffixed), "TopicDisallowed")
    }

    func testMissingOrMalformedChannelHeaderAndMissingTokenAreRefused() async throws {
        let missing = try await raw("GET", "/1/apps/\(Fixtures.bundleID)/channels")
        XCTAssertEqual(missing.status, 400)
        XCTAssertEqual(reason(missing), "MissingChannelId")
        XCTAssertNotNil(missing.headers["apns-request-id"], "errors carry apns-request-id")
        let bad = try await raw("GET", "/1/apps/\(Fixtures.bundleID)/channels", headers: ["apns-channel-id": "not base64!"])
        XCTAssertEqual(reason(bad), "BadChannelId")
        let noAuth = try await http.send(HTTPRequest(method: "GET", url: gateway.apnsURL! + "/1/apps/\(Fixtures.bundleID)/all-channels"))
        XCTAssertEqual(noAuth.status, 403)
        XCTAssertEqual(reason(noAuth), "MissingProviderToken")
        let echoed = try await raw("GET", "/1/apps/\(Fixtures.bundleID)/all-channels", headers: ["apns-request-id": "2b0a1c3e-4d5f-4a6b-8c7d-9e0f1a2b3c4d"])
        XCTAssertEqual(echoed.headers["apns-request-id"], "2b0a1c3e-4d5f-4a6b-8c7d-9e0f1a2b3c4d")
    }

    func testBroadcastReachesTheSubscribersAndNoStorageNeedsExpirationZero() async throws {
        let c = try client()
        guard case .success(let id, _) = await c.create(bundleID: Fixtures.bundleID, policy: .noStorage) else { return XCTFail("create") }
        for i in 1...3 { _ = gateway.channels.subscribe(ChannelSubscriber(deviceName: "phone-\(i)", activityID: "A\(i)"), to: id) }
        let payload = Array(#"{"aps":{"event":"update","timestamp":1767226200,"content-state":{"status":"on the way"}}}"#.utf8)
        guard case .rejected(400, .apns(.badExpirationDate)?, _) = await c.broadcast(bundleID: Fixtures.bundleID, channelID: id, payload: payload, expiration: 1767229200) else {
            return XCTFail("a No-Storage channel accepts apns-expiration 0 only")
        }
        guard case .success = await c.broadcast(bundleID: Fixtures.bundleID, channelID: id, payload: payload, expiration: 0) else { return XCTFail("broadcast") }
        XCTAssertEqual(sink.all.count, 1)
        XCTAssertEqual(sink.all.first?.1.map(\.deviceName), ["phone-1", "phone-2", "phone-3"])
        let noType = try await raw("POST", "/4/broadcasts/apps/\(Fixtures.bundleID)", headers: ["apns-channel-id": id, "apns-expiration": "0"],
                                   body: String(decoding: payload, as: UTF8.self))
        XCTAssertEqual(reason(noType), "MissingPushType")
    }

    func testMostRecentChannelKeepsTheLastBroadcastForALateSubscriber() async throws {
        let c = try client()
        guard case .success(let keep, _) = await c.create(bundleID: Fixtures.bundleID, policy: .mostRecentMessage),
              case .success(let drop, _) = await c.create(bundleID: Fixtures.bundleID, policy: .noStorage) else { return XCTFail("create") }
        let first = Array(#"{"aps":{"event":"update","timestamp":1,"content-state":{"n":1}}}"#.utf8)
        let second = Array(#"{"aps":{"event":"update","timestamp":2,"content-state":{"n":2}}}"#.utf8)
        for p in [first, second] {
            guard case .success = await c.broadcast(bundleID: Fixtures.bundleID, channelID: keep, payload: p, expiration: 1767229200),
                  case .success = await c.broadcast(bundleID: Fixtures.bundleID, channelID: drop, payload: p, expiration: 0) else { return XCTFail("broadcast") }
        }
        XCTAssertTrue(sink.all.isEmpty, "no subscribers yet: nothing delivered")
        guard case .success(let stored?) = gateway.channels.subscribe(ChannelSubscriber(deviceName: "late", activityID: "L"), to: keep) else {
            return XCTFail("a Most-Recent-Message channel replays its last broadcast")
        }
        XCTAssertEqual(stored.payload, second)
        XCTAssertTrue(stored.isStoredReplay)
        guard case .success(nil) = gateway.channels.subscribe(ChannelSubscriber(deviceName: "late", activityID: "L2"), to: drop) else {
            return XCTFail("a No-Storage channel keeps nothing")
        }
    }
}

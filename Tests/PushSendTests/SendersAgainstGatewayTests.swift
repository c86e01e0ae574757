import XCTest
import PushAuth
import PushCore
import PushGateway
import PushHTTP
import TestSupport
@testable import PushSend

/// The senders against pushlab's own gateway emulator (which checks JWTs, headers and payloads
/// the way APNs and FCM do): the two sides were written separately, so this is where their
/// reading of the specs has to agree.
final class SendersAgainstGatewayTests: XCTestCase {
    var gateway: Gateway!
    var http: HTTPClient!
    var dir: URL!

    override func setUp() async throws {
        dir = Fixtures.temporaryDirectory()
        let config = GatewayConfiguration(certificateFile: Fixtures.serverCert, privateKeyFile: Fixtures.serverKey)
        gateway = try Gateway(configuration: config, keys: try GatewayKeys.developmentDefaults(certsDirectory: Fixtures.path("certs")),
                              devices: DeviceRegistry())
        try gateway.start()
        http = try HTTPClient(configuration: HTTPClientConfiguration(caFile: Fixtures.caFile))
    }

    override func tearDown() async throws {
        await http?.shutdown()
        await gateway?.stop()
        try? FileManager.default.removeItem(at: dir)
    }

    func apnsClient(retry: RetryPolicy = RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(10))) throws -> APNsClient {
        let key = try APNsAuthKey.load(path: Fixtures.apnsKey, teamID: Fixtures.apnsTeamID)
        return APNsClient(endpoint: try .custom(gateway.apnsURL!), transport: http, credential: ProviderTokenCache(key: key), retry: retry)
    }

    func testAlertPushIsAcceptedWithASandboxUniqueID() async throws {
        let push = try PreparedAPNsPush(payload: Array(#"{"aps":{"alert":{"title":"Hi","body":"gateway"}}}"#.utf8),
                                        options: APNsPushOptions(topic: Fixtures.bundleID))
        let result = try await apnsClient().send(push, to: TestTokens.apns)
        guard case .accepted(let a) = result.outcome else { return XCTFail("\(result.outcome)") }
        XCTAssertEqual(a.apnsID, result.apnsID)
        XCTAssertNotNil(a.uniqueID, "the sandbox answers with apns-unique-id")
    }

    /// The gateway starts at one stream until a token is accepted, then raises the limit:
    /// the bulk engine must follow the server's SETTINGS and lose nothing.
    func testBulkOf2000PushesIsAllAcceptedAndRecorded() async throws {
        let client = try apnsClient()
        let push = try PreparedAPNsPush(payload: Array(#"{"aps":{"alert":"bulk"}}"#.utf8), options: APNsPushOptions(topic: Fixtures.bundleID))
        let text = (0..<2_000).map(TestTokens.apns).joined(separator: "\n")
        let summary = try await BulkSender(concurrency: 200).run(tokens: TokenLineReader(text: text), sinks: []) { token, index in
            await client.send(push, to: token, index: index).report
        }
        XCTAssertEqual(summary.accepted, 2_000, "\(summary.reasons)")
        gateway.records.flush()
        XCTAssertEqual(try gateway.records.recent(limit: 5_000).filter { $0.service == .apns && $0.status == 200 }.count, 2_000)
    }

    func testGatewayRejectionsArriveAsTypedReasons() async throws {
        let client = try apnsClient(retry: .none)
        // Pre-flight off, so the gateway (not pushlab) judges.
        let big = #"{"aps":{"alert":""# + String(repeating: "x", count: 4200) + #""}}"#
        let tooLarge = try PreparedAPNsPush(payload: Array(big.utf8), options: APNsPushOptions(topic: Fixtures.bundleID), validate: false)
        let r1 = await client.send(tooLarge, to: TestTokens.apns)
        XCTAssertEqual(r1.report.reason, "PayloadTooLarge")
        XCTAssertEqual(r1.report.status, 413)
        let noTopic = try PreparedAPNsPush(payload: Array(#"{"aps":{"alert":"x"}}"#.utf8), options: APNsPushOptions(), validate: false)
        let r2 = await client.send(noTopic, to: TestTokens.apns)
        XCTAssertEqual(r2.report.reason, "MissingTopic")
        let fcmToken = try PreparedAPNsPush(payload: Array(#"{"aps":{"alert":"x"}}"#.utf8), options: APNsPushOptions(topic: Fixtures.bundleID), validate: false)
        let r3 = await client.send(fcmToken, to: TestTokens.fcm)
        XCTAssertEqual(r3.report.reason, "BadDeviceToken")
        XCTAssertTrue(r3.report.prune)
    }

    func testFCMSendWithOAuthFromTheGatewayTokenURI() async throws {
        let saPath = try Fixtures.fcmServiceAccount(tokenURI: gateway.tokenURL!, in: dir)
        let account = try ServiceAccount.load(path: saPath)
        let client = FCMClient(baseURL: gateway.fcmURL!, projectID: account.projectID, transport: http,
                               credential: OAuthTokenSource(account: account, transport: http), retry: .none)
        let message = try PreparedFCMMessage(document: try JSONDocument.parse(Array(#"{"aps":{"alert":{"title":"t","body":"b"}}}"#.utf8)),
                                             validateOnly: false)
        let ok = await client.send(message, to: .token(TestTokens.fcm))
        guard case .accepted(let name) = ok.outcome else { return XCTFail("\(ok.outcome)") }
        XCTAssertTrue(name.hasPrefix("projects/pushlab-dev/messages/"), name)
        // An APNs token sent anyway (pre-flight off) is what FCM calls an invalid registration token.
        let bad = await client.send(message, to: .token(TestTokens.apns), checkTarget: false)
        guard case .rejected(let e) = bad.outcome else { return XCTFail("\(bad.outcome)") }
        XCTAssertEqual(e.errorCode, .invalidArgument)
        XCTAssertEqual(e.httpStatus, 400)
    }
}
